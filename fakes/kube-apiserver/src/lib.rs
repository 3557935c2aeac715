//! Embedded Kubernetes API server.
