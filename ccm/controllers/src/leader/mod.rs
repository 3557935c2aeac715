//! Leader election on `coordination.k8s.io/v1` Leases with client-go's semantics.
