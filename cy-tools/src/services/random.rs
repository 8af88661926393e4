//! Random names from the kernel's generator, for files, folders and keys other runs must not
//! guess: what every backend that names a temporary file or signs a state needs, so it is here
//! once rather than in each.

use std::io::Read;

use super::{ServiceError, ServiceErrorKind};

/// `bytes` random bytes from `/dev/urandom`, as lowercase hex (`2 * bytes` characters).
///
/// ```
/// let name = cy_tools::services::random_hex(8).unwrap();
/// assert_eq!(name.len(), 16);
/// assert!(name.bytes().all(|c| c.is_ascii_hexdigit()));
/// ```
///
/// # Errors
/// [`Unavailable`](ServiceErrorKind::Unavailable): `/dev/urandom` cannot be read (a host
/// without `/dev` mounted).
pub fn random_hex(bytes: usize) -> Result<String, ServiceError> {
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
        let a = super::random_hex(8).unwrap();
        let b = super::random_hex(8).unwrap();
        assert_eq!(a.len(), 16);
        assert!(a.bytes().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
    }
}
