//! The flags that chose the server, as the user typed them, for the `oltp
//! prepare` / `oltp cleanup` commands that messages suggest: a suggested
//! command without them would act on another server (the private one).

use std::fmt;
use std::path::Path;

use encbench_common::password::{check_at_signs, has_password, with_password, without_password};

/// What a printed URL shows in place of its password.
pub const PASSWORD_PLACEHOLDER: &str = "PASSWORD";

/// `--mysql-url URL` / `--pgsql-url URL`, `--password-file F` and
/// `--base-dir DIR` as given, each with a leading space (empty when none was
/// given: the private server of the default base directory).
///
/// Built once from the command line before the password is read
/// ([`crate::config::resolve_password`]); never holds a password: a URL that
/// spells one shows [`PASSWORD_PLACEHOLDER`] instead (in `USER:PASS@` and in a
/// `password=` query parameter), `--password-file` is printed as its path.
/// Words the shell would split or expand are single-quoted.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ServerFlags(String);

impl ServerFlags {
    /// The flags of a server given by `url` under `url_flag` (`--mysql-url` or
    /// `--pgsql-url`), `password_file` and `base_dir`, each when given.
    pub fn new(
        url_flag: &str,
        url: Option<&str>,
        password_file: Option<&Path>,
        base_dir: Option<&Path>,
    ) -> ServerFlags {
        let mut s = String::new();
        if let Some(url) = url {
            s.push_str(&format!(" {url_flag} {}", shell_word(&printable_url(url))));
        }
        if let Some(f) = password_file {
            s.push_str(&format!(
                " --password-file {}",
                shell_word(&f.to_string_lossy())
            ));
        }
        if let Some(d) = base_dir {
            s.push_str(&format!(" --base-dir {}", shell_word(&d.to_string_lossy())));
        }
        ServerFlags(s)
    }

    /// The flags, each with a leading space (empty: none given).
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ServerFlags {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// `url` as typed, with any password replaced by [`PASSWORD_PLACEHOLDER`];
/// `URL` for text whose `@`s make its password's end unclear (the drivers
/// refuse it anyway).
fn printable_url(url: &str) -> String {
    if check_at_signs(url).is_err() {
        return "URL".to_string();
    }
    let url = if has_password(url) {
        with_password(&without_password(url), PASSWORD_PLACEHOLDER, "")
            .unwrap_or_else(|_| "URL".to_string())
    } else {
        url.to_string()
    };
    match url.split_once('?') {
        None => url,
        Some((base, query)) => {
            let params: Vec<String> = query
                .split('&')
                .map(|p| match p.split_once('=') {
                    Some((k, _)) if k.eq_ignore_ascii_case("password") => {
                        format!("{k}={PASSWORD_PLACEHOLDER}")
                    }
                    _ => p.to_string(),
                })
                .collect();
            format!("{base}?{}", params.join("&"))
        }
    }
}

/// `s` as one shell word: as is when made only of characters no shell
/// treats specially, else in single quotes (`'` as `'\''`).
pub(crate) fn shell_word(s: &str) -> String {
    let plain = !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"@%+=:,./_-".contains(&b));
    if plain {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_password_in_the_url_is_replaced_by_the_placeholder() {
        let f = ServerFlags::new(
            "--mysql-url",
            Some("mysql://root:s3cret@h:3306/"),
            None,
            None,
        );
        assert_eq!(f.as_str(), " --mysql-url mysql://root:PASSWORD@h:3306/");
        let f = ServerFlags::new(
            "--pgsql-url",
            Some("postgres://u@h:5432/db?sslmode=disable&password=s3cret"),
            None,
            None,
        );
        assert_eq!(
            f.as_str(),
            " --pgsql-url 'postgres://u@h:5432/db?sslmode=disable&password=PASSWORD'"
        );
        let f = ServerFlags::new("--pgsql-url", Some("postgres://u:p@ss@h/db"), None, None);
        assert_eq!(f.as_str(), " --pgsql-url URL");
    }

    #[test]
    fn the_url_without_a_password_and_the_files_are_kept_as_typed() {
        let f = ServerFlags::new(
            "--mysql-url",
            Some("mysql://u@[::1]:3306/"),
            Some(Path::new("/run/pw file")),
            Some(Path::new("/srv/encbench")),
        );
        assert_eq!(
            f.as_str(),
            " --mysql-url 'mysql://u@[::1]:3306/' --password-file '/run/pw file' --base-dir /srv/encbench"
        );
        assert_eq!(
            ServerFlags::new("--mysql-url", None, None, None),
            ServerFlags::default()
        );
        assert_eq!(shell_word("it's"), r"'it'\''s'");
    }
}
