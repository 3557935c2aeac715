//! The Azure cloud provider behind the CCM: implements `ccm-cloud`'s traits against ARM, IMDS and
//! Entra ID. Built up over issue 10; so far only [`config`] (azure.json).

pub mod cloud;
pub mod config;
pub mod credential;
