//! Integration tests of ccm-controllers against the embedded API server run as a real process.
