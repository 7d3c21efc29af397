//! A small, strict argument reader: `--flag value` pairs and bare `--switch`es, each known in
//! advance, no abbreviations, no `=` forms, no positional leftovers; and the one URL form the
//! load generators take.

use std::net::SocketAddr;

use loopback_mcp_http::client::trace::TraceMode;

/// The switch for a wire trace in lines, and the one for a trace byte by byte.
const TRACE: &str = "trace";
const TRACE_BYTES: &str = "trace-bytes";

/// The flags of one command, in the order given.
#[derive(Debug, Default)]
pub struct Flags {
    pairs: Vec<(String, String)>,
    switches: Vec<String>,
}

impl Flags {
    /// Reads `args` as `--name value` pairs, refusing names not in `known`.
    pub fn parse(args: &[String], known: &[&str]) -> Result<Flags, String> {
        Flags::parse_with_switches(args, known, &[])
    }

    /// [`Flags::parse_with_switches`] for a command that prints a wire trace (`demo`, `attack`,
    /// `lab`, `probe`): the trace switches are among its own, so a near miss of one is named,
    /// and [`Flags::trace`] reads them.
    pub fn parse_traced(
        args: &[String],
        known: &[&str],
        switches: &[&str],
    ) -> Result<Flags, String> {
        let all: Vec<&str> =
            [TRACE, TRACE_BYTES].into_iter().chain(switches.iter().copied()).collect();
        Flags::parse_with_switches(args, known, &all)
    }

    /// Reads `args` as `--name value` pairs for names in `known` and bare `--name`s for names in
    /// `switches` (each at most once), refusing anything else.
    pub fn parse_with_switches(
        args: &[String],
        known: &[&str],
        switches: &[&str],
    ) -> Result<Flags, String> {
        let (mut pairs, mut on) = (Vec::new(), Vec::new());
        let mut rest = args.iter();
        while let Some(name) = rest.next() {
            if let Some(switch) = name.strip_prefix("--").filter(|n| switches.contains(n)) {
                if on.iter().any(|s| s == switch) {
                    return Err(format!("--{switch} given twice"));
                }
                on.push(switch.to_owned());
                continue;
            }
            let Some(bare) = name.strip_prefix("--").filter(|n| known.contains(n)) else {
                return Err(unknown_argument(name, known, switches));
            };
            let Some(value) = rest.next() else {
                return Err(format!("--{bare} needs a value"));
            };
            pairs.push((bare.to_owned(), value.clone()));
        }
        Ok(Flags { pairs, switches: on })
    }

    /// Whether a switch was given.
    pub fn has(&self, switch: &str) -> bool {
        self.switches.iter().any(|s| s == switch)
    }

    /// The wire trace the switches of [`Flags::parse_traced`] ask for.
    pub fn trace(&self) -> Result<TraceMode, String> {
        match (self.has(TRACE), self.has(TRACE_BYTES)) {
            (false, false) => Ok(TraceMode::Off),
            (true, false) => Ok(TraceMode::Lines),
            (false, true) => Ok(TraceMode::Bytes),
            (true, true) => Err("--trace and --trace-bytes exclude each other".to_owned()),
        }
    }

    /// Every value of a repeatable flag.
    pub fn all(&self, name: &str) -> Vec<String> {
        self.pairs.iter().filter(|(n, _)| n == name).map(|(_, v)| v.clone()).collect()
    }

    /// The value of a flag given at most once, parsed.
    pub fn one<T: std::str::FromStr>(&self, name: &str) -> Result<Option<T>, String> {
        let mut values = self.pairs.iter().filter(|(n, _)| n == name);
        match (values.next(), values.next()) {
            (None, _) => Ok(None),
            (Some((_, v)), None) => {
                v.parse().map(Some).map_err(|_| format!("--{name}: not a valid value: {v:?}"))
            }
            (Some(_), Some(_)) => Err(format!("--{name} given twice")),
        }
    }
}

/// The fewest letters after `--` that are taken as the start of a longer flag.
const PREFIX_MIN: usize = 3;

/// Why `name` is refused, with the form that would have been accepted where one is close.
fn unknown_argument(name: &str, known: &[&str], switches: &[&str]) -> String {
    // Never repeated: the value may be a token (`--token=…`).
    if let Some((flag, _)) = name.strip_prefix("--").and_then(|n| n.split_once('='))
        && known.contains(&flag)
    {
        return format!("unknown argument \"--{flag}=…\" (write --{flag} and its value apart)");
    }
    let flags: Vec<String> = known.iter().chain(switches).map(|f| format!("--{f}")).collect();
    if flags.is_empty() {
        return format!("unknown argument {name:?} (this command takes none)");
    }
    let names: Vec<&str> = flags.iter().map(String::as_str).collect();
    // `--session-ttl=5` is looked for as `--session-ttl`; a value is never repeated.
    let bare = name.split_once('=').map_or(name, |(flag, _)| flag);
    // A flag cut short (`--session-ttl` for `--session-ttl-secs`) when one flag starts so; else
    // a near miss, which also picks among several that do (`--trac`: `--trace`); else all of them.
    let longer: Vec<&str> = match bare.strip_prefix("--") {
        Some(stem) if stem.len() >= PREFIX_MIN => {
            names.iter().copied().filter(|f| f.starts_with(bare) && *f != bare).collect()
        }
        Some(_) | None => Vec::new(),
    };
    let near = super::help::near(bare, &names);
    let shown =
        if bare == name { format!("{name:?}") } else { format!("{:?}", format!("{bare}=…")) };
    let pick = match (longer.as_slice(), near) {
        ([one], _) => Some(*one),
        ([], near) => near,
        (several, Some(flag)) if several.contains(&flag) => Some(flag),
        (_, _) => None,
    };
    if let Some(flag) = pick {
        return format!("unknown argument {shown} (did you mean `{flag}`?)");
    }
    if longer.len() > 1 {
        let each: Vec<String> = longer.iter().map(|f| format!("`{f}`")).collect();
        return format!("unknown argument {shown} (did you mean one of {}?)", each.join(", "));
    }
    format!("unknown argument {name:?} (the flags are {})", flags.join(", "))
}

/// The address of a loopback server's `http://127.0.0.1:PORT/mcp` URL; the load generators load nothing else.
pub fn loopback_address(url: &str) -> Result<SocketAddr, String> {
    let authority = url
        .strip_prefix("http://")
        .and_then(|rest| rest.strip_suffix("/mcp"))
        .ok_or("--url must look like http://127.0.0.1:PORT/mcp")?;
    let address: SocketAddr = authority.parse().map_err(|_| "--url must name 127.0.0.1:PORT")?;
    if !address.ip().is_loopback() {
        return Err("only loopback servers are loaded".into());
    }
    Ok(address)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn flags_are_known_named_once_or_repeated_and_typed() {
        let flags = Flags::parse(
            &args(&["--port", "8", "--origin", "a", "--origin", "b"]),
            &["port", "origin"],
        )
        .unwrap();
        assert_eq!(flags.one::<u16>("port"), Ok(Some(8)));
        assert_eq!(flags.all("origin"), vec!["a".to_owned(), "b".to_owned()]);
        assert_eq!(flags.one::<u16>("workers"), Ok(None));
        assert!(flags.one::<u16>("origin").is_err());
        assert!(Flags::parse(&args(&["--port"]), &["port"]).is_err());
        assert!(Flags::parse(&args(&["--prt", "1"]), &["port"]).is_err());
        assert!(Flags::parse(&args(&["8"]), &["port"]).is_err());
        assert!(
            Flags::parse(&args(&["--port", "x"]), &["port"]).unwrap().one::<u16>("port").is_err()
        );
    }

    #[test]
    fn switches_are_bare_known_and_given_at_most_once() {
        let parse =
            |list: &[&str]| Flags::parse_with_switches(&args(list), &["port"], &["chunked"]);
        let flags = parse(&["--chunked", "--port", "8"]).unwrap();
        assert!(flags.has("chunked"));
        assert_eq!(flags.one::<u16>("port"), Ok(Some(8)));
        assert!(!parse(&["--port", "8"]).unwrap().has("chunked"));
        assert!(parse(&["--chunked", "--chunked"]).is_err());
        assert!(parse(&["--chunked", "yes"]).is_err(), "a switch takes no value");
        assert!(Flags::parse(&args(&["--chunked"]), &["port"]).is_err());
    }
}
