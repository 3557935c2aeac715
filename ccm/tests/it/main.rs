//! Integration tests of the package binaries.
