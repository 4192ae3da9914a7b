//! One-line error messages: an error's cause chain with each cause once, and
//! clap's usage errors.

/// The error and its causes on one line, without the repetitions that arise when
/// an error's message already quotes its source, or quotes a message that itself
/// repeats its source's prefix (as `mysql_async`'s "Input/output error:
/// Input/output error: ..." does): each cause appears once.
pub fn error_line(e: &anyhow::Error) -> String {
    let mut line = String::new();
    for cause in e.chain() {
        let text = cause.to_string();
        if line.contains(&text) {
            continue;
        }
        if !line.is_empty() {
            line.push_str(": ");
        }
        line.push_str(&text);
    }
    dedup_segments(&line.replace('\n', " "))
}

/// `a: b: b: c` as `a: b: c`: drops a `": "`-separated segment equal to the one
/// before it.
fn dedup_segments(line: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    for seg in line.split(": ") {
        if out.last() != Some(&seg) {
            out.push(seg);
        }
    }
    out.join(": ")
}

/// clap's error for bad command-line input on one line, without its `error:`
/// prefix: the problem, the possible values where clap lists them, and which
/// `--help` to read (`help`, e.g. `oltp run`). clap's "a similar value exists"
/// tip is left out: the possible values are listed, and the nearest spelling is
/// often not the value meant.
pub fn usage_error_line(e: &clap::Error, help: &str) -> String {
    let text = e.to_string();
    let mut line = String::new();
    for raw in text.lines() {
        let l = raw.trim();
        if l.starts_with("Usage:") || l.starts_with("For more information") {
            break;
        }
        if l.is_empty() || l.starts_with("tip: a similar value exists") {
            continue;
        }
        if line.is_empty() {
            line.push_str(l.strip_prefix("error: ").unwrap_or(l));
        } else if let Some(list) = l.strip_prefix('[').and_then(|x| x.strip_suffix(']')) {
            // "[possible values: a, b]", "[subcommands: ...]"
            line.push_str(": ");
            line.push_str(list);
        } else if let Some(tip) = l.strip_prefix("tip: ") {
            line.push_str("; ");
            line.push_str(tip);
        } else {
            line.push_str(if line.ends_with(':') { " " } else { "; " });
            line.push_str(l);
        }
    }
    if line.is_empty() {
        line.push_str("invalid arguments");
    }
    format!("{line}; see {help} --help")
}

/// The command whose `--help` covers the arguments `args` (program name first):
/// `oltp SUBCOMMAND` when the first argument names a subcommand, else `oltp`.
pub fn help_command(args: &[String]) -> String {
    use clap::CommandFactory as _;
    let cmd = crate::cli::Cli::command();
    match args.get(1).and_then(|a| cmd.find_subcommand(a)) {
        Some(sub) => format!("oltp {}", sub.get_name()),
        None => "oltp".to_string(),
    }
}
