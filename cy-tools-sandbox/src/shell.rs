//! Quoting for `/bin/sh`, which every command, code run and resource limit goes through.

/// `text` as one word for `/bin/sh`: single-quoted, with each `'` written as `'\''`.
pub(crate) fn quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use super::quote;

    #[test]
    fn quoting_keeps_any_path_one_word() {
        assert_eq!(quote("/w/main.py"), "'/w/main.py'");
        assert_eq!(quote("/w/it's $HOME.py"), r"'/w/it'\''s $HOME.py'");
    }

    #[test]
    fn the_shell_reads_it_back_unchanged() {
        let text = "it's \"$HOME\" `x` \\ *";
        let out = std::process::Command::new("/bin/sh")
            .arg("-c")
            .arg(format!("printf %s {}", quote(text)))
            .output()
            .unwrap();
        assert_eq!(String::from_utf8(out.stdout).unwrap(), text);
    }
}
