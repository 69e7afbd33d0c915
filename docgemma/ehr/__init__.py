"""The EHR: an embedded FHIR R4 server, its synthetic patients, and the client the tools use."""
