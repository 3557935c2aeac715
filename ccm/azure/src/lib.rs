//! The Azure cloud provider behind the CCM: implements `ccm-cloud`'s traits against ARM, IMDS and
//! Entra ID. Built up over issue 10: so far azure.json ([`config`]), clouds and trust ([`cloud`]),
//! credentials ([`credential`]), the ARM transport and resource models ([`arm`]), throttle gates and
//! client rate limits ([`throttle`]), metrics ([`metrics`]), caches ([`cache`]) and the IMDS
//! client ([`imds`]), node metadata over ARM ([`instances`]), zones ([`zones`]), Service load balancers
//! ([`loadbalancer`]), pod CIDR routes ([`routes`]) and the provider assembly ([`provider`]).

pub mod arm;
pub mod cache;
pub mod cloud;
pub mod config;
pub mod credential;
pub mod imds;
pub mod instances;
pub mod loadbalancer;
pub mod metrics;
pub mod provider;
pub mod routes;
pub mod throttle;
pub mod zones;
