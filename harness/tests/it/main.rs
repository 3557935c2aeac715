//! Integration tests of the `harness` binary. One module per command family.

mod testgrid_cli;
