//! `--token-auth-file`: static bearer tokens, one CSV line each, as the real server reads them
//! (`token,user,uid,"group1,group2"`; kubernetes `staging/src/k8s.io/apiserver/pkg/authentication/token/tokenfile`).
//! Lines starting with `#` and empty lines are skipped.

use std::path::Path;

use crate::Error;
use crate::auth::TokenUser;

/// Reads the token users of `path`.
pub fn read(path: &Path) -> Result<Vec<TokenUser>, Error> {
    let text = std::fs::read_to_string(path).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })?;
    parse(&text).map_err(|message| Error::TokenFile {
        path: path.to_path_buf(),
        message,
    })
}

/// Splits one CSV line on commas outside double quotes, unquoting the fields.
fn fields(line: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut quoted = false;
    for c in line.chars() {
        match c {
            '"' => quoted = !quoted,
            ',' if !quoted => out.push(String::new()),
            c => out.last_mut().map_or((), |f| f.push(c)),
        }
    }
    out.into_iter().map(|f| f.trim().to_string()).collect()
}

/// Parses the file's text; a line needs at least token, user and uid.
pub fn parse(text: &str) -> Result<Vec<TokenUser>, String> {
    let mut users = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let f = fields(line);
        if f.len() < 3 || f[0].is_empty() || f[1].is_empty() {
            return Err(format!(
                "line {}: want token,user,uid[,\"groups\"] ({} fields)",
                i + 1,
                f.len()
            ));
        }
        let groups = f
            .get(3)
            .map(|g| {
                g.split(',')
                    .map(str::trim)
                    .filter(|g| !g.is_empty())
                    .map(String::from)
                    .collect()
            })
            .unwrap_or_default();
        users.push(TokenUser {
            token: f[0].clone(),
            user: f[1].clone(),
            groups,
        });
    }
    Ok(users)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_groups_and_comments() {
        let users = parse("# c\nt1,alice,1,\"a,b\"\n\nt2,bob,2\n").unwrap();
        assert_eq!(users.len(), 2);
        assert_eq!(users[0].user, "alice");
        assert_eq!(users[0].groups, vec!["a", "b"]);
        assert!(users[1].groups.is_empty());
        assert!(parse("only-a-token\n").is_err());
    }
}
