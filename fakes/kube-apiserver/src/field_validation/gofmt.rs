//! Go's `%+v` rendering of a decoded JSON value (`map[spec:map[replicas:2]]`): the real server
//! quotes a strategic merge patch this way in its strict-decoding error, so the fake does too.

use serde_json::Value;

/// `value` as Go prints a `map[string]interface{}` tree: sorted map keys, space-separated
/// elements, strings unquoted, `<nil>` for null.
pub fn go_value(value: &Value) -> String {
    let mut out = String::new();
    write(value, &mut out);
    out
}

fn write(value: &Value, out: &mut String) {
    match value {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            out.push_str("map[");
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                out.push_str(k);
                out.push(':');
                write(&m[k], out);
            }
            out.push(']');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                write(item, out);
            }
            out.push(']');
        }
        Value::String(s) => out.push_str(s),
        Value::Null => out.push_str("<nil>"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&n.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn renders_like_go() {
        let v = json!({"spec": {"replicaz": 2, "b": [true, null, "x"]}, "a": {}});
        assert_eq!(
            go_value(&v),
            "map[a:map[] spec:map[b:[true <nil> x] replicaz:2]]"
        );
    }
}
