//! Integration tests of the `harness` binary. One module per command family.

mod manifests_cli;
mod testgrid_cli;
