/** See the module's pom description; docs/architecture.md places it in the house. */
package io.k4j.controllerkit;
