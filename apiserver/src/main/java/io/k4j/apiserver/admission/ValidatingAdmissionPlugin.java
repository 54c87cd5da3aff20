package io.k4j.apiserver.admission;

/** Admission that checks the final object after the resource's own validation; must not change it. */
public interface ValidatingAdmissionPlugin extends AdmissionPlugin {
    /**
     * @throws io.k4j.api.errors.StatusException to reject the request
     */
    void validate(AdmissionAttributes attributes);
}
