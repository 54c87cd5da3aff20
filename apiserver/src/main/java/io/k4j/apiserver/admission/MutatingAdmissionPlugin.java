package io.k4j.apiserver.admission;

/** Admission that may change the incoming object; runs before defaulting-independent validation. */
public interface MutatingAdmissionPlugin extends AdmissionPlugin {
    /**
     * @throws io.k4j.api.errors.StatusException to reject the request
     */
    void admit(AdmissionAttributes attributes);
}
