//! Random names from the kernel's generator, for files and folders other runs must not guess.

use std::io::Read;

use cy_tools::{ServiceError, ServiceErrorKind};

/// `bytes` random bytes as lowercase hex.
///
/// # Errors
/// `/dev/urandom` cannot be read (a host without `/dev` mounted).
pub(crate) fn hex(bytes: usize) -> Result<String, ServiceError> {
    let mut buf = vec![0u8; bytes];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut buf))
        .map_err(|err| {
            ServiceError::new(
                ServiceErrorKind::Unavailable,
                format!(
                    "could not read `/dev/urandom` for a random name: {err}; the host needs `/dev` mounted"
                ),
            )
        })?;
    Ok(buf.iter().map(|b| format!("{b:02x}")).collect())
}

#[cfg(test)]
mod tests {
    #[test]
    fn names_are_hex_of_the_length_asked_and_differ() {
        let a = super::hex(8).unwrap();
        let b = super::hex(8).unwrap();
        assert_eq!(a.len(), 16);
        assert!(a.bytes().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
    }
}
