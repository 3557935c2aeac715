//! No secret ever shows in `Debug`, `Display` or an error.

use super::load_file;

const SECRETS: [&str; 3] = [
    "sp-secret-9f8e7d6c5b4a",
    "cert-password-1a2b3c4d",
    "env-secret-0a9b8c7d",
];

#[test]
fn debug_and_display_of_a_config_with_secrets_contain_none() {
    let text = format!(
        r#"{{"aadClientId": "client", "aadClientSecret": "{}", "aadClientCertPath": "/c.pem",
            "aadClientCertPassword": "{}", "tenantId": "t", "subscriptionId": "s"}}"#,
        SECRETS[0], SECRETS[1]
    );
    let loaded = load_file(&text, &[]).expect("loads");
    let env_loaded =
        load_file(&text, &[("AZURE_CLIENT_SECRET", SECRETS[2])]).expect("loads with env");
    for config in [&loaded.config, &env_loaded.config] {
        let debug = format!("{config:?}");
        let pretty = format!("{config:#?}");
        let display = config.to_string();
        for secret in SECRETS {
            assert!(!debug.contains(secret), "Debug leaks {secret}: {debug}");
            assert!(!pretty.contains(secret), "pretty Debug leaks {secret}");
            assert!(
                !display.contains(secret),
                "Display leaks {secret}: {display}"
            );
        }
        assert!(display.contains("<redacted>"), "{display}");
    }
    // The secrets are still there for the credential builder.
    assert_eq!(
        loaded.config.identity.aad_client_secret.expose(),
        SECRETS[0]
    );
    assert_eq!(
        env_loaded.config.identity.aad_client_secret.expose(),
        SECRETS[2]
    );
}

#[test]
fn errors_about_secret_keys_do_not_quote_them() {
    let text = format!(r#"{{"aadClientSecret": ["{}"]}}"#, SECRETS[0]);
    let err = load_file(&text, &[]).expect_err("a list is not a secret string");
    assert!(!err.to_string().contains(SECRETS[0]), "{err}");
    assert!(!format!("{err:?}").contains(SECRETS[0]), "{err:?}");
}

#[test]
fn debug_of_the_inputs_does_not_print_the_documents() {
    let text = format!(r#"{{"aadClientSecret": "{}"}}"#, SECRETS[0]);
    let origin = crate::config::Origin::default_secret();
    let inputs = crate::config::Inputs {
        file: None,
        secret: Some(crate::config::SourceText {
            origin: &origin,
            text: &text,
        }),
        env: [("AZURE_CLIENT_SECRET".to_string(), SECRETS[2].to_string())].into(),
    };
    let debug = format!("{inputs:?}");
    for secret in SECRETS {
        assert!(
            !debug.contains(secret),
            "Debug of inputs leaks {secret}: {debug}"
        );
    }
}
