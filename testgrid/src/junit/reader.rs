//! Reads a JUnit file the way TestGrid's `metadata/junit` package does: `<testsuites>` or a bare
//! `<testsuite>` root, nested suites joined with dots, `classname` ignored, testcase properties
//! kept and suite properties ignored.

use quick_xml::Reader;
use quick_xml::events::{BytesStart, Event};

/// Why TestGrid would record a JUnit file as malformed.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ParseError {
    /// The root element is neither `testsuites` nor `testsuite`.
    #[error("root element <{0}> is not <testsuites> or <testsuite>")]
    WrongRoot(String),
    /// No element at all.
    #[error("no XML element found (empty file?)")]
    Empty,
    /// TestGrid only accepts UTF-8.
    #[error(
        "encoding {0:?} is not accepted: TestGrid reads only UTF-8 (declare \"UTF-8\" or nothing)"
    )]
    Encoding(String),
    /// Syntax error.
    #[error("XML error at byte {position}: {message}")]
    Xml {
        /// Byte offset.
        position: u64,
        /// The parser's message.
        message: String,
    },
    /// A `time` attribute that Go's float parser rejects.
    #[error("<{element} name={name:?}> has time={value:?}, not a number of seconds")]
    BadTime {
        /// `testcase` or `testsuite`.
        element: String,
        /// Its name.
        name: String,
        /// The rejected text.
        value: String,
    },
}

/// Message and body of a `<failure>`, `<error>` or `<skipped>`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Detail {
    /// `message` attribute.
    pub message: String,
    /// Element text.
    pub body: String,
}

/// One `<testcase>` as TestGrid sees it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ParsedCase {
    /// `<suite>.<nested suite>.<testcase>` (empty suite names drop their dot).
    pub row_name: String,
    /// `time` in seconds.
    pub time_secs: f64,
    /// `<failure>` if present.
    pub failure: Option<Detail>,
    /// `<error>` if present.
    pub error: Option<Detail>,
    /// `<skipped>` if present.
    pub skipped: Option<Detail>,
    /// `<system-out>` text.
    pub system_out: String,
    /// `<system-err>` text.
    pub system_err: String,
    /// Testcase `<property name value>` pairs in document order.
    pub properties: Vec<(String, String)>,
}

/// All test cases of one file, flattened.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ParsedFile {
    /// Cases in document order.
    pub cases: Vec<ParsedCase>,
}

#[derive(Clone, Copy, PartialEq)]
enum Capture {
    None,
    Failure,
    Error,
    Skipped,
    SystemOut,
    SystemErr,
}

/// Parses JUnit XML bytes.
pub fn parse(xml: &[u8]) -> Result<ParsedFile, ParseError> {
    let mut reader = Reader::from_reader(xml);
    reader.config_mut().trim_text(false);
    let mut buf = Vec::new();
    let mut suites: Vec<String> = Vec::new();
    let mut case: Option<ParsedCase> = None;
    let mut capture = Capture::None;
    let mut saw_root = false;
    let mut depth = 0usize;
    let mut out = ParsedFile::default();
    let err = |reader: &Reader<&[u8]>, e: &dyn std::fmt::Display| ParseError::Xml {
        position: reader.buffer_position(),
        message: e.to_string(),
    };
    loop {
        let event = reader
            .read_event_into(&mut buf)
            .map_err(|e| err(&reader, &e))?;
        match event {
            Event::Decl(decl) => {
                if let Some(enc) = decl.encoding() {
                    let enc = enc.map_err(|e| err(&reader, &e))?;
                    let enc = String::from_utf8_lossy(&enc).to_string();
                    // Go's decoder accepts any case of "utf-8" itself; TestGrid's charset
                    // reader adds exactly "UTF-8", "utf8" and "".
                    if !enc.eq_ignore_ascii_case("utf-8") && enc != "utf8" && !enc.is_empty() {
                        return Err(ParseError::Encoding(enc));
                    }
                }
            }
            Event::Start(ref e) | Event::Empty(ref e) => {
                let is_empty = matches!(event, Event::Empty(_));
                if !is_empty {
                    depth += 1;
                }
                let name = String::from_utf8_lossy(e.local_name().as_ref()).to_string();
                if !saw_root {
                    saw_root = true;
                    if name != "testsuites" && name != "testsuite" {
                        return Err(ParseError::WrongRoot(name));
                    }
                }
                match (name.as_str(), case.as_mut()) {
                    ("testsuite", None) => {
                        let suite = attr(e, "name", &reader)?;
                        check_time(e, "testsuite", &suite, &reader)?;
                        if !is_empty {
                            suites.push(suite);
                        }
                    }
                    ("testcase", None) => {
                        let name = attr(e, "name", &reader)?;
                        let time_secs = check_time(e, "testcase", &name, &reader)?;
                        let parsed = ParsedCase {
                            row_name: row_name(&suites, &name),
                            time_secs,
                            ..Default::default()
                        };
                        if is_empty {
                            out.cases.push(parsed);
                        } else {
                            case = Some(parsed);
                        }
                    }
                    ("property", Some(c)) => {
                        c.properties
                            .push((attr(e, "name", &reader)?, attr(e, "value", &reader)?));
                    }
                    ("failure" | "error" | "skipped", Some(c)) => {
                        let detail = Detail {
                            message: attr(e, "message", &reader)?,
                            body: String::new(),
                        };
                        capture = match name.as_str() {
                            "failure" => {
                                c.failure = Some(detail);
                                Capture::Failure
                            }
                            "error" => {
                                c.error = Some(detail);
                                Capture::Error
                            }
                            _ => {
                                c.skipped = Some(detail);
                                Capture::Skipped
                            }
                        };
                        if is_empty {
                            capture = Capture::None;
                        }
                    }
                    ("system-out", Some(_)) if !is_empty => capture = Capture::SystemOut,
                    ("system-err", Some(_)) if !is_empty => capture = Capture::SystemErr,
                    _ => {}
                }
            }
            Event::End(ref e) => {
                depth = depth.saturating_sub(1);
                match e.local_name().as_ref() {
                    b"testsuite" if case.is_none() => {
                        suites.pop();
                    }
                    b"testcase" => {
                        if let Some(c) = case.take() {
                            out.cases.push(c);
                        }
                        capture = Capture::None;
                    }
                    b"failure" | b"error" | b"skipped" | b"system-out" | b"system-err" => {
                        capture = Capture::None
                    }
                    _ => {}
                }
            }
            Event::Text(ref t) => {
                let text = t.decode().map_err(|e| err(&reader, &e))?;
                let text = quick_xml::escape::unescape(&text).map_err(|e| err(&reader, &e))?;
                push_text(case.as_mut(), capture, &text);
            }
            Event::CData(ref t) => {
                let text = t.decode().map_err(|e| err(&reader, &e))?;
                push_text(case.as_mut(), capture, &text);
            }
            Event::GeneralRef(ref r) => {
                let resolved = if r.is_char_ref() {
                    r.resolve_char_ref()
                        .map_err(|e| err(&reader, &e))?
                        .map(String::from)
                } else {
                    let name = r.decode().map_err(|e| err(&reader, &e))?;
                    quick_xml::escape::resolve_predefined_entity(&name).map(str::to_owned)
                };
                let text = resolved.ok_or_else(|| err(&reader, &"unknown entity reference"))?;
                push_text(case.as_mut(), capture, &text);
            }
            Event::Eof if depth > 0 => {
                return Err(err(
                    &reader,
                    &"unexpected end of file inside an open element",
                ));
            }
            Event::Eof => break,
            _ => {}
        }
        buf.clear();
    }
    if !saw_root {
        return Err(ParseError::Empty);
    }
    Ok(out)
}

fn push_text(case: Option<&mut ParsedCase>, capture: Capture, text: &str) {
    let Some(c) = case else { return };
    let target = match capture {
        Capture::None => return,
        Capture::Failure => c.failure.as_mut().map(|d| &mut d.body),
        Capture::Error => c.error.as_mut().map(|d| &mut d.body),
        Capture::Skipped => c.skipped.as_mut().map(|d| &mut d.body),
        Capture::SystemOut => Some(&mut c.system_out),
        Capture::SystemErr => Some(&mut c.system_err),
    };
    if let Some(t) = target {
        t.push_str(text);
    }
}

fn row_name(suites: &[String], case: &str) -> String {
    let mut parts: Vec<&str> = suites
        .iter()
        .map(String::as_str)
        .filter(|s| !s.is_empty())
        .collect();
    parts.push(case);
    parts.join(".")
}

fn attr(e: &BytesStart<'_>, key: &str, reader: &Reader<&[u8]>) -> Result<String, ParseError> {
    for a in e.attributes() {
        let a = a.map_err(|err| ParseError::Xml {
            position: reader.buffer_position(),
            message: err.to_string(),
        })?;
        if a.key.local_name().as_ref() == key.as_bytes() {
            let v = a
                .normalized_value(quick_xml::XmlVersion::Implicit1_0)
                .map_err(|err| ParseError::Xml {
                    position: reader.buffer_position(),
                    message: err.to_string(),
                })?;
            return Ok(v.into_owned());
        }
    }
    Ok(String::new())
}

/// Go's XML decoder reads an empty attribute as 0 and fails on anything `ParseFloat` rejects.
fn check_time(
    e: &BytesStart<'_>,
    element: &str,
    name: &str,
    reader: &Reader<&[u8]>,
) -> Result<f64, ParseError> {
    let raw = attr(e, "time", reader)?;
    let trimmed = raw.trim();
    if trimmed.is_empty() {
        return Ok(0.0);
    }
    trimmed.parse::<f64>().map_err(|_| ParseError::BadTime {
        element: element.to_owned(),
        name: name.to_owned(),
        value: raw.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_suites_join_with_dots_and_classname_is_ignored() {
        let xml = br#"<testsuites><testsuite name="outer"><testsuite name="inner">
            <testcase name="case" classname="ignored" time="1.5"/></testsuite>
            <testcase name="top"/></testsuite></testsuites>"#;
        let f = parse(xml).unwrap();
        let names: Vec<_> = f.cases.iter().map(|c| c.row_name.as_str()).collect();
        assert_eq!(names, ["outer.inner.case", "outer.top"]);
        assert_eq!(f.cases[0].time_secs, 1.5);
    }

    #[test]
    fn bare_testsuite_root_and_empty_suite_name() {
        let f = parse(br#"<testsuite><testcase name="x"/></testsuite>"#).unwrap();
        assert_eq!(f.cases[0].row_name, "x");
    }

    #[test]
    fn details_properties_and_entities() {
        let xml = br#"<?xml version="1.0" encoding="UTF-8"?><testsuites><testsuite name="s">
            <properties><property name="suite-level" value="ignored"/></properties>
            <testcase name="a &amp; b"><properties><property name="calls" value="7"/></properties>
            <failure message="m&lt;1">line&#10;two<![CDATA[<raw>]]></failure><system-out>out</system-out></testcase>
            </testsuite></testsuites>"#;
        let c = &parse(xml).unwrap().cases[0];
        assert_eq!(c.row_name, "s.a & b");
        assert_eq!(c.properties, [("calls".to_owned(), "7".to_owned())]);
        let failure = c.failure.as_ref().unwrap();
        assert_eq!(failure.message, "m<1");
        assert_eq!(failure.body, "line\ntwo<raw>");
        assert_eq!(c.system_out, "out");
    }

    #[test]
    fn rejects_what_testgrid_rejects() {
        assert_eq!(
            parse(b"<report/>"),
            Err(ParseError::WrongRoot("report".into()))
        );
        assert_eq!(parse(b""), Err(ParseError::Empty));
        assert!(matches!(
            parse(br#"<?xml version="1.0" encoding="ISO-8859-1"?><testsuites/>"#),
            Err(ParseError::Encoding(_))
        ));
        assert!(matches!(
            parse(br#"<?xml version="1.0" encoding="UTF8"?><testsuites/>"#),
            Err(ParseError::Encoding(_))
        ));
        for ok in ["utf8", "Utf-8", ""] {
            let xml = format!(r#"<?xml version="1.0" encoding="{ok}"?><testsuites/>"#);
            assert_eq!(parse(xml.as_bytes()), Ok(ParsedFile::default()), "{ok}");
        }
        assert!(matches!(
            parse(
                b"<testsuite><testcase name=\"x\"><failure>\xff</failure></testcase></testsuite>"
            ),
            Err(ParseError::Xml { .. })
        ));
        assert!(matches!(
            parse(b"<testsuite><testcase name=\"\xff\"/></testsuite>"),
            Err(ParseError::Xml { .. })
        ));
        assert!(matches!(
            parse(br#"<testsuite><testcase name="x" time="1,5"/></testsuite>"#),
            Err(ParseError::BadTime { .. })
        ));
        assert!(matches!(
            parse(b"<testsuites><testsuite>"),
            Err(ParseError::Xml { .. })
        ));
    }
}
