//! Shared helpers for the ilc command-line tools.

pub mod dispatch;

use std::fmt::Write;

use isa_amdil::ast::Program;

/// A readable AST dump: the version line, then one statement per line prefixed with its
/// `line:col` source position and the guide section of its opcode.
pub fn ast_dump(program: &Program) -> String {
    let mut out = String::new();
    if let Some(v) = &program.version {
        let _ = writeln!(out, "version {v}");
    }
    for inst in &program.statements {
        let _ = writeln!(
            out,
            "{:>5}:{:<3} [{}] {}",
            inst.span.line,
            inst.span.col,
            inst.opcode.section(),
            inst
        );
    }
    out
}
pub mod ilgen;
pub mod spa5_text;

/// Writes `bytes` to the file `path`, or to standard output when there is none or it is `-`.
pub fn write_output(path: Option<&std::path::Path>, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write as _;
    match path {
        Some(p) if p.as_os_str() != "-" => write_file(p, bytes),
        _ => std::io::stdout().write_all(bytes),
    }
}

/// Writes `bytes` to `path`, replacing its contents, like [`std::fs::write`] but without
/// opening an existing file with `O_TRUNC`: a regular file is overwritten in place and then
/// cut to the new length. On ext4, truncating a file to zero makes the kernel flush it
/// (the `auto_da_alloc` guard for replace-by-truncate), and a compiler rewriting its output
/// file waited ~4 ms in `open` for the previous run's data to reach the disk: three times
/// the whole process.
pub fn write_file(path: &std::path::Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write as _;
    // No truncation on open: the length is set after writing (see above).
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)?;
    // Only a longer regular file needs cutting: writing from the start extends a shorter one
    // to exactly the new length, and `ftruncate` costs a filesystem transaction even when
    // nothing changes (the usual case: a rebuild writes the same size again). FIFOs and
    // devices have no length to set.
    let meta = file.metadata()?;
    file.write_all(bytes)?;
    if meta.is_file() && meta.len() > bytes.len() as u64 {
        file.set_len(bytes.len() as u64)?;
    }
    Ok(())
}

#[cfg(test)]
mod write_file_tests {
    use super::write_file;

    #[test]
    fn replaces_longer_and_shorter_contents() {
        let dir = std::env::temp_dir().join(format!("ilc-write-file-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("out.bin");
        write_file(&p, b"a much longer first content").unwrap();
        write_file(&p, b"short").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"short");
        write_file(&p, b"longer than short").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"longer than short");
        write_file(&p, b"").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

/// Command-line value types shared by the tools (clap value enums: `--help` lists the
/// accepted values and a wrong one is a usage error).
pub mod cli_args {
    use clap::ValueEnum;

    /// An optimization level, `-O0` .. `-O3`.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
    pub enum OptArg {
        /// No optimization.
        #[value(name = "0")]
        O0,
        /// Cheap clean-ups.
        #[value(name = "1")]
        O1,
        /// The default pipeline.
        #[value(name = "2")]
        O2,
        /// Today the same as 2.
        #[value(name = "3")]
        O3,
    }

    /// The level's digit, as on the command line.
    impl std::fmt::Display for OptArg {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            // Invariant: no variant is skipped, so each has a value.
            let v = self.to_possible_value().expect("every level has a value");
            f.write_str(v.get_name())
        }
    }

    impl From<OptArg> for ilc::OptLevel {
        fn from(o: OptArg) -> Self {
            match o {
                OptArg::O0 => ilc::OptLevel::O0,
                OptArg::O1 => ilc::OptLevel::O1,
                OptArg::O2 => ilc::OptLevel::O2,
                OptArg::O3 => ilc::OptLevel::O3,
            }
        }
    }

    /// A target architecture.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
    pub enum ArchArg {
        /// Maxwell GM107/GM108.
        #[value(name = "sm_50", alias = "sm50", alias = "50")]
        Sm50,
        /// Maxwell GM20x.
        #[value(name = "sm_52", alias = "sm52", alias = "52")]
        Sm52,
        /// Maxwell Tegra X1.
        #[value(name = "sm_53", alias = "sm53", alias = "53")]
        Sm53,
    }

    impl From<ArchArg> for ilc::Arch {
        fn from(a: ArchArg) -> Self {
            match a {
                ArchArg::Sm50 => ilc::Arch::Sm50,
                ArchArg::Sm52 => ilc::Arch::Sm52,
                ArchArg::Sm53 => ilc::Arch::Sm53,
            }
        }
    }
}

/// Logging: every tool installs one `tracing` subscriber at start-up, so the compiler's spans
/// (one per kernel, pass and backend stage) and events can be seen.
///
/// The filter is `ILC_LOG` if set, else `RUST_LOG`, else `warn` (directives as in
/// `tracing_subscriber::EnvFilter`: `ILC_LOG=debug`, `ILC_LOG=ilc=debug,ilc_passes=trace`);
/// `-q` turns logging off whatever they say. Events go to stderr with the time since the first
/// span or event (a plain level builds the formatter then, see [`Filter`]) and
/// their span path (`kernel{name=saxpy}:pass{name=gvn}: ...`), coloured when stderr is a
/// terminal and `NO_COLOR` is unset or empty.
pub mod logging {
    use std::io::IsTerminal;

    use tracing_subscriber::EnvFilter;

    /// The logging flag every tool takes.
    #[derive(Clone, Copy, Debug, Default, clap::Args)]
    pub struct LogArgs {
        /// Quiet: no log output (ILC_LOG / RUST_LOG select it otherwise, default `warn`).
        #[arg(short = 'q', long = "quiet")]
        pub quiet: bool,
    }

    /// The filter directives: `-q`, else `ILC_LOG`, else `RUST_LOG`, else `warn`.
    pub fn directives(quiet: bool, ilc_log: Option<&str>, rust_log: Option<&str>) -> String {
        if quiet {
            return "off".to_owned();
        }
        [ilc_log, rust_log]
            .into_iter()
            .flatten()
            .find(|s| !s.trim().is_empty())
            .unwrap_or("warn")
            .to_owned()
    }

    /// How [`LogArgs::init`] filters: a plain level needs no `EnvFilter` (whose directive
    /// parser compiles regular expressions at start-up, ~2% of a small compile's process
    /// time), and `off` needs no subscriber at all.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub enum Filter {
        /// Nothing is logged: no subscriber is installed.
        Off,
        /// Events at this level and more severe, from every target.
        Level(tracing::Level),
        /// Anything else: `EnvFilter` directives.
        Directives(String),
    }

    /// The filter of directives `spec` (as [`directives`] returns them).
    pub fn filter(spec: &str) -> Filter {
        use tracing_subscriber::filter::LevelFilter;
        match spec.trim().parse::<LevelFilter>() {
            Ok(l) => l.into_level().map_or(Filter::Off, Filter::Level),
            Err(_) => Filter::Directives(spec.to_owned()),
        }
    }

    impl LogArgs {
        /// Installs the subscriber for `tool` (its name prefixes a warning about a filter
        /// that does not parse, which is then replaced by `warn`).
        pub fn init(&self, tool: &str) {
            let ilc_log = std::env::var("ILC_LOG").ok();
            let rust_log = std::env::var("RUST_LOG").ok();
            let spec = directives(self.quiet, ilc_log.as_deref(), rust_log.as_deref());
            fn color() -> bool {
                std::io::stderr().is_terminal()
                    && !matches!(std::env::var_os("NO_COLOR"), Some(v) if !v.is_empty())
            }
            let builder = || {
                tracing_subscriber::fmt()
                    .with_writer(std::io::stderr)
                    .with_ansi(color())
                    .with_timer(tracing_subscriber::fmt::time::uptime())
            };
            // A second initialization (tests calling main twice) keeps the first subscriber.
            match filter(&spec) {
                Filter::Off => {}
                Filter::Level(level) => {
                    // Built at the first event: a run that logs nothing (the default
                    // `warn`: nothing in the compiler logs at that level) never pays for
                    // the formatter and its span registry.
                    let build = move || -> Box<dyn tracing::Subscriber + Send + Sync> {
                        Box::new(builder().with_max_level(level).finish())
                    };
                    let _ = tracing::subscriber::set_global_default(lazy::Lazy::new(
                        level,
                        Box::new(build),
                    ));
                }
                Filter::Directives(spec) => {
                    let filter = EnvFilter::try_new(&spec).unwrap_or_else(|e| {
                        eprintln!("{tool}: warning: ignoring the log filter `{spec}`: {e}");
                        EnvFilter::new("warn")
                    });
                    let _ = builder().with_env_filter(filter).try_init();
                }
            }
        }
    }

    /// A subscriber that builds the real one when the first enabled span or event arrives.
    mod lazy {
        use std::sync::OnceLock;

        use tracing::span::{Attributes, Id, Record};
        use tracing::subscriber::Interest;
        use tracing::{Event, Level, Metadata, Subscriber};
        use tracing_subscriber::filter::LevelFilter;

        type Inner = Box<dyn Subscriber + Send + Sync>;
        type Build = Box<dyn Fn() -> Inner + Send + Sync>;

        /// Filters by level itself; everything else goes to the subscriber `build` makes,
        /// once, at the first span or event the level lets through.
        pub struct Lazy {
            level: Level,
            build: Build,
            inner: OnceLock<Inner>,
        }

        impl Lazy {
            pub fn new(level: Level, build: Build) -> Lazy {
                Lazy {
                    level,
                    build,
                    inner: OnceLock::new(),
                }
            }

            fn inner(&self) -> &Inner {
                self.inner.get_or_init(|| (self.build)())
            }
        }

        impl Subscriber for Lazy {
            fn register_callsite(&self, meta: &'static Metadata<'static>) -> Interest {
                if self.enabled(meta) {
                    Interest::always()
                } else {
                    Interest::never()
                }
            }
            fn enabled(&self, meta: &Metadata<'_>) -> bool {
                *meta.level() <= self.level
            }
            fn max_level_hint(&self) -> Option<LevelFilter> {
                Some(LevelFilter::from_level(self.level))
            }
            fn new_span(&self, span: &Attributes<'_>) -> Id {
                self.inner().new_span(span)
            }
            fn record(&self, span: &Id, values: &Record<'_>) {
                self.inner().record(span, values)
            }
            fn record_follows_from(&self, span: &Id, follows: &Id) {
                self.inner().record_follows_from(span, follows)
            }
            fn event(&self, event: &Event<'_>) {
                self.inner().event(event)
            }
            fn enter(&self, span: &Id) {
                self.inner().enter(span)
            }
            fn exit(&self, span: &Id) {
                self.inner().exit(span)
            }
            fn clone_span(&self, id: &Id) -> Id {
                self.inner().clone_span(id)
            }
            fn try_close(&self, id: Id) -> bool {
                self.inner().try_close(id)
            }
        }
    }

    #[cfg(test)]
    mod tests {
        use super::directives;

        #[test]
        fn precedence() {
            assert_eq!(directives(false, None, None), "warn");
            assert_eq!(directives(false, None, Some("debug")), "debug");
            assert_eq!(
                directives(false, Some("ilc=trace"), Some("debug")),
                "ilc=trace"
            );
            assert_eq!(directives(false, Some(" "), Some("info")), "info");
            assert_eq!(directives(true, Some("trace"), Some("trace")), "off");
        }

        #[test]
        fn plain_levels_need_no_env_filter() {
            use super::{filter, Filter};
            assert_eq!(filter("off"), Filter::Off);
            assert_eq!(filter("warn"), Filter::Level(tracing::Level::WARN));
            assert_eq!(filter("DEBUG"), Filter::Level(tracing::Level::DEBUG));
            assert_eq!(
                filter("ilc=debug"),
                Filter::Directives("ilc=debug".to_owned())
            );
            assert_eq!(
                filter("warn,ilc_passes=trace"),
                Filter::Directives("warn,ilc_passes=trace".to_owned())
            );
        }
    }
}

/// How every tool reports: source diagnostics in rustc's layout (or one JSON object per line
/// with `--message-format=json`), a closing summary line, and the tool's own failures as
/// `TOOL: error: message` (warnings `TOOL: warning: message`). Colours go to stderr only
/// when it is a terminal and `NO_COLOR` is unset (`anstream` strips them otherwise, and
/// honours `CLICOLOR_FORCE`); text is never coloured in files or pipes.
pub mod report {
    use isa_amdil::diag::{summary, summary_styled, Diagnostic};

    /// The `--message-format` values.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
    pub enum MessageFormat {
        /// Rendered for people: `error[E0010]: ...`, the source line, carets, notes.
        #[default]
        Human,
        /// One JSON object per diagnostic and line on stderr (code, severity, message, file,
        /// line, col, spans, notes, help); no summary line. The tool's own errors (I/O,
        /// usage) too, with code and file null and a "tool" key.
        Json,
    }

    /// Prints diagnostics and messages for one tool.
    #[derive(Clone, Copy, Debug)]
    pub struct Reporter {
        /// The tool's name, the prefix of its own messages.
        pub tool: &'static str,
        /// Human or JSON.
        pub format: MessageFormat,
        /// Errors only (warnings are not printed, nor counted in the summary).
        pub quiet: bool,
    }

    impl Reporter {
        /// A human-format reporter.
        pub fn new(tool: &'static str) -> Reporter {
            Reporter {
                tool,
                format: MessageFormat::Human,
                quiet: false,
            }
        }

        /// The text [`Reporter::diagnostics`] prints (styled: with ANSI colours, which the
        /// caller's `anstream` stream strips when not on a terminal).
        pub fn format_diagnostics(
            &self,
            diags: &[Diagnostic],
            file_name: &str,
            source: &str,
            styled: bool,
        ) -> String {
            let mut out = String::new();
            for d in diags.iter().filter(|d| d.is_error() || !self.quiet) {
                match self.format {
                    MessageFormat::Json => {
                        out.push_str(&d.to_json(file_name, source));
                        out.push('\n');
                    }
                    MessageFormat::Human if styled => {
                        out.push_str(&d.render_styled(file_name, source))
                    }
                    MessageFormat::Human => out.push_str(&d.render(file_name, source)),
                }
            }
            out
        }

        /// Prints `diags` (warnings skipped when quiet) to stderr.
        pub fn diagnostics(&self, diags: &[Diagnostic], file_name: &str, source: &str) {
            let text = self.format_diagnostics(diags, file_name, source, true);
            if !text.is_empty() {
                anstream::eprint!("{text}");
            }
        }

        /// The summary line for `diags` (`error: aborting due to 2 previous errors`), none
        /// in JSON format or when there is nothing to count.
        pub fn format_summary(&self, diags: &[Diagnostic], styled: bool) -> Option<String> {
            if self.format == MessageFormat::Json {
                return None;
            }
            let counted: Vec<Diagnostic> = diags
                .iter()
                .filter(|d| d.is_error() || !self.quiet)
                .cloned()
                .collect();
            if styled {
                summary_styled(&counted)
            } else {
                summary(&counted)
            }
        }

        /// Prints the diagnostics then their summary line.
        pub fn diagnostics_and_summary(&self, diags: &[Diagnostic], file_name: &str, source: &str) {
            self.diagnostics(diags, file_name, source);
            if let Some(s) = self.format_summary(diags, true) {
                anstream::eprintln!("{s}");
            }
        }

        /// The line [`Reporter::error`] and [`Reporter::warning`] print: `TOOL: level:
        /// message` (styled: the level coloured), or in JSON format [`tool_json`].
        pub fn format_message(&self, level: &str, message: &str, styled: bool) -> String {
            match self.format {
                MessageFormat::Json => tool_json(self.tool, level, message, &[]),
                MessageFormat::Human if styled => prefixed(self.tool, level, message),
                MessageFormat::Human => format!("{}: {level}: {message}", self.tool),
            }
        }

        /// `TOOL: error: message` on stderr (a JSON line in JSON format).
        pub fn error(&self, message: impl std::fmt::Display) {
            anstream::eprintln!(
                "{}",
                self.format_message("error", &message.to_string(), true)
            );
        }

        /// `TOOL: warning: message` on stderr (nothing when quiet; a JSON line in JSON
        /// format).
        pub fn warning(&self, message: impl std::fmt::Display) {
            if !self.quiet {
                anstream::eprintln!(
                    "{}",
                    self.format_message("warning", &message.to_string(), true)
                );
            }
        }
    }

    /// A tool's own message (I/O, usage) as one JSON object with the keys of a diagnostic's
    /// ([`Diagnostic::to_json`]): `code`, `file` null, `line` and `col` 0 and no spans, as
    /// for a diagnostic without a position, plus `"tool"`; `notes` carries further lines
    /// (clap's tip and usage line).
    pub fn tool_json(tool: &str, level: &str, message: &str, notes: &[&str]) -> String {
        use isa_amdil::diag::json_str;
        let notes: Vec<String> = notes.iter().map(|n| json_str(n)).collect();
        format!(
            "{{\"code\":null,\"severity\":{},\"message\":{},\"file\":null,\"line\":0,\"col\":0,\"spans\":[],\"notes\":[{}],\"help\":[],\"tool\":{}}}",
            json_str(level),
            json_str(message),
            notes.join(","),
            json_str(tool)
        )
    }

    /// True when `args` (the command line after the program name) asks for
    /// `--message-format=json` (or `--message-format json`): consulted when clap cannot
    /// parse the command line, so even a usage error comes as JSON.
    pub fn json_requested<I, S>(args: I) -> bool
    where
        I: IntoIterator<Item = S>,
        S: AsRef<std::ffi::OsStr>,
    {
        let mut prev_flag = false;
        let mut json = false;
        for a in args {
            let a = a.as_ref().to_string_lossy();
            if a == "--" {
                break;
            }
            if prev_flag {
                json = a == "json";
            } else if let Some(v) = a.strip_prefix("--message-format=") {
                json = v == "json";
            }
            prev_flag = a == "--message-format";
        }
        json
    }

    /// Parses the command line of a tool with `--message-format`: help and version print
    /// and exit 0 as usual; a usage error is printed by clap, or as one [`tool_json`] line
    /// (the message, clap's tip and usage lines as notes) when JSON was asked for, and the
    /// process exits with clap's code (2).
    pub fn parse_cli<C: clap::Parser>(tool: &str) -> C {
        match C::try_parse() {
            Ok(c) => c,
            Err(e) if !e.use_stderr() || !json_requested(std::env::args_os().skip(1)) => e.exit(),
            Err(e) => {
                let text = e.to_string();
                let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
                let first = lines.next().unwrap_or("invalid command line");
                let message = first.strip_prefix("error: ").unwrap_or(first);
                let notes: Vec<&str> = lines.collect();
                eprintln!("{}", tool_json(tool, "error", message, &notes));
                std::process::exit(e.exit_code());
            }
        }
    }

    /// `tool: level: message` with the level word coloured like the diagnostics.
    pub fn prefixed(tool: &str, level: &str, message: &str) -> String {
        use annotate_snippets::renderer::{DEFAULT_ERROR_STYLE, DEFAULT_WARNING_STYLE};
        let style = if level == "error" {
            DEFAULT_ERROR_STYLE
        } else {
            DEFAULT_WARNING_STYLE
        };
        format!("{tool}: {style}{level}{style:#}: {message}")
    }

    /// `TOOL: error: message` for a tool without a [`Reporter`].
    pub fn error(tool: &str, message: impl std::fmt::Display) {
        anstream::eprintln!("{}", prefixed(tool, "error", &message.to_string()));
    }

    /// `TOOL: warning: message` for a tool without a [`Reporter`].
    pub fn warning(tool: &str, message: impl std::fmt::Display) {
        anstream::eprintln!("{}", prefixed(tool, "warning", &message.to_string()));
    }

    #[cfg(test)]
    mod tests {
        use super::*;
        use isa_amdil::ast::Span;

        fn diags() -> Vec<Diagnostic> {
            let at = Span {
                start: 10,
                end: 13,
                line: 2,
                col: 1,
            };
            vec![
                Diagnostic::warning("W0001", at, "w"),
                Diagnostic::error("E0010", at, "unknown opcode `bad`"),
            ]
        }

        #[test]
        fn human_json_quiet_and_summary() {
            let src = "il_cs_2_0\nbad r0\nend\n";
            let mut r = Reporter::new("ilc");
            let human = r.format_diagnostics(&diags(), "k.il", src, false);
            assert!(
                human.starts_with("warning[W0001]: w\n --> k.il:2:1\n"),
                "{human}"
            );
            assert!(human.contains("error[E0010]: unknown opcode `bad`"));
            assert!(!human.contains('\x1b'));
            assert!(r
                .format_diagnostics(&diags(), "k.il", src, true)
                .contains('\x1b'));
            assert_eq!(
                r.format_summary(&diags(), false).as_deref(),
                Some("error: aborting due to 1 previous error; 1 warning emitted")
            );
            r.quiet = true;
            assert!(!r
                .format_diagnostics(&diags(), "k.il", src, false)
                .contains("W0001"));
            assert_eq!(
                r.format_summary(&diags(), false).as_deref(),
                Some("error: aborting due to 1 previous error")
            );
            r.quiet = false;
            r.format = MessageFormat::Json;
            let json = r.format_diagnostics(&diags(), "k.il", src, true);
            let lines: Vec<&str> = json.lines().collect();
            assert_eq!(lines.len(), 2);
            assert!(lines[1].starts_with("{\"code\":\"E0010\",\"severity\":\"error\""));
            assert!(!json.contains('\x1b'));
            assert_eq!(r.format_summary(&diags(), false), None);
        }

        #[test]
        fn tool_messages_follow_the_format() {
            let mut r = Reporter::new("ilc");
            assert_eq!(
                r.format_message("error", "cannot read k.il: gone", false),
                "ilc: error: cannot read k.il: gone"
            );
            r.format = MessageFormat::Json;
            assert_eq!(
                r.format_message("error", "cannot read \"k.il\"", true),
                "{\"code\":null,\"severity\":\"error\",\"message\":\"cannot read \\\"k.il\\\"\",\
                 \"file\":null,\"line\":0,\"col\":0,\"spans\":[],\"notes\":[],\"help\":[],\
                 \"tool\":\"ilc\"}"
            );
            assert_eq!(
                tool_json("ilc", "error", "m", &["tip: x", "Usage: ilc"]),
                "{\"code\":null,\"severity\":\"error\",\"message\":\"m\",\"file\":null,\
                 \"line\":0,\"col\":0,\"spans\":[],\"notes\":[\"tip: x\",\"Usage: ilc\"],\
                 \"help\":[],\"tool\":\"ilc\"}"
            );
        }

        #[test]
        fn json_request_is_found_before_clap_parses() {
            assert!(json_requested(["k.il", "--message-format=json"]));
            assert!(json_requested(["--message-format", "json", "--bogus"]));
            assert!(!json_requested(["--message-format=human", "k.il"]));
            assert!(!json_requested([
                "--message-format=json",
                "--message-format=human"
            ]));
            assert!(!json_requested(["--", "--message-format=json"]));
            assert!(!json_requested(["k.il"]));
        }

        #[test]
        fn prefix_style() {
            let p = prefixed("spa5-as", "error", "bad");
            assert!(p.starts_with("spa5-as: "));
            assert!(p.ends_with(": bad"));
            let plain = anstream::adapter::strip_str(&p).to_string();
            assert_eq!(plain, "spa5-as: error: bad");
        }
    }
}
