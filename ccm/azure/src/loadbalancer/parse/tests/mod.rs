//! Tests of the Service parser.
