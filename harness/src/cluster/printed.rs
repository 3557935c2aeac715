//! The endpoints `azure-fakes serve` prints before `ready` (`arm: URL`, `tenant: ID`, `ca: PATH`,
//! `imds <node>: URL`...), read back into a typed value.

use std::path::PathBuf;

/// What the fake printed, one field per line it promises.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrintedFake {
    /// `arm:` ARM base URL as printed (trailing slash).
    pub arm: String,
    /// `admin:` admin API base URL.
    pub admin: String,
    /// `authority:` Entra authority host.
    pub authority: String,
    /// `tenant:` tenant id.
    pub tenant: String,
    /// `subscription:` subscription id.
    pub subscription: String,
    /// `ca:` PEM file of the CA the fake's certificate chains to.
    pub ca: PathBuf,
    /// `imds <node>: URL` per node, in printed order.
    pub imds: Vec<(String, String)>,
    /// `proxy:` URL of the fake's CONNECT proxy for the Entra hosts (`--proxy-listen`), if any.
    pub proxy: Option<String>,
}

impl PrintedFake {
    /// Parses the printed lines; `Err` names the first missing key.
    pub fn parse(lines: &[String]) -> Result<Self, String> {
        let field = |key: &str| {
            let prefix = format!("{key}: ");
            lines
                .iter()
                .find_map(|l| l.strip_prefix(&prefix).map(|v| v.trim().to_string()))
                .ok_or_else(|| key.to_string())
        };
        let imds = lines
            .iter()
            .filter_map(|l| l.strip_prefix("imds "))
            .filter_map(|l| l.split_once(": "))
            .map(|(node, url)| (node.to_string(), url.trim().to_string()))
            .collect();
        Ok(Self {
            arm: field("arm")?,
            admin: field("admin")?,
            authority: field("authority")?,
            tenant: field("tenant")?,
            subscription: field("subscription")?,
            ca: PathBuf::from(field("ca")?),
            imds,
            proxy: field("proxy").ok(),
        })
    }

    /// `https://host:port` (no trailing slash): where ARM, Entra ID, IMDS and admin are served.
    pub fn base(&self) -> &str {
        self.arm.trim_end_matches('/')
    }
}

/// The path printed after `kubeconfig written to` by `azure-fakes kube-apiserver`.
pub fn printed_kubeconfig(lines: &[String]) -> Option<PathBuf> {
    lines.iter().find_map(|l| {
        l.split_once("kubeconfig written to ")
            .map(|(_, path)| PathBuf::from(path.trim()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_every_field_and_names_a_missing_one() {
        let lines: Vec<String> = [
            "azure-fakes: fake Azure cloud serving on https://127.0.0.1:4000",
            "arm: https://127.0.0.1:4000/",
            "metadata: https://127.0.0.1:4000/metadata/endpoints?api-version=2019-05-01",
            "authority: https://127.0.0.1:4000/",
            "token: https://127.0.0.1:4000/t/oauth2/v2.0/token",
            "admin: https://127.0.0.1:4000/admin/",
            "ca: /tmp/x/ca.crt",
            "tenant: t",
            "subscription: s",
            "imds n-0: https://127.0.0.1:4000/imds/n-0",
            "ready",
        ]
        .map(String::from)
        .to_vec();
        let printed = PrintedFake::parse(&lines).unwrap();
        assert_eq!(printed.base(), "https://127.0.0.1:4000");
        assert_eq!(printed.ca, PathBuf::from("/tmp/x/ca.crt"));
        assert_eq!(printed.proxy, None);
        let mut with_proxy = lines.clone();
        with_proxy.insert(0, "proxy: http://127.0.0.1:4001".into());
        assert_eq!(
            PrintedFake::parse(&with_proxy).unwrap().proxy.as_deref(),
            Some("http://127.0.0.1:4001")
        );
        assert_eq!(
            printed.imds,
            vec![("n-0".into(), "https://127.0.0.1:4000/imds/n-0".into())]
        );
        let without_ca: Vec<String> = lines
            .iter()
            .filter(|l| !l.starts_with("ca: "))
            .cloned()
            .collect();
        let missing = PrintedFake::parse(&without_ca).unwrap_err();
        assert_eq!(missing, "ca");
        assert_eq!(
            printed_kubeconfig(&["kube-apiserver: kubeconfig written to /a/b".into()]),
            Some(PathBuf::from("/a/b"))
        );
    }
}
