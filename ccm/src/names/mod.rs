//! Names the anchor CCM publishes (labels, annotations, taints, finalizers) kept in one place so
//! the controllers, the manifest generator and the reference docs can never disagree.
