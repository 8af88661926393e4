//! JSON numbers compared by value, exactly: `1`, `1.0` and `1e0` are one number, and an `i64`
//! near 2^63 is not rounded to its neighbour on the way to `f64`.

use std::cmp::Ordering;

use serde_json::Number;

/// A JSON number in the widest exact form `serde_json` holds it in.
#[derive(Clone, Copy)]
enum Exact {
    Int(i128),
    Float(f64),
}

fn exact(n: &Number) -> Option<Exact> {
    if let Some(u) = n.as_u64() {
        Some(Exact::Int(i128::from(u)))
    } else if let Some(i) = n.as_i64() {
        Some(Exact::Int(i128::from(i)))
    } else {
        // `None` only past `f64`, with `serde_json/arbitrary_precision` enabled by another crate.
        n.as_f64().map(Exact::Float)
    }
}

/// `int` against `float`, without rounding either: the integer part decides, then the fraction.
fn int_against_float(int: i128, float: f64) -> Ordering {
    // Every JSON integer lies in [-2^63, 2^64); floats outside that range need no cast.
    const TWO_POW_64: f64 = 18_446_744_073_709_551_616.0;
    if float >= TWO_POW_64 {
        return Ordering::Less;
    }
    if float < -TWO_POW_64 {
        return Ordering::Greater;
    }
    let whole = float.trunc();
    // Exact: `whole` is integral and well inside `i128`.
    #[allow(clippy::cast_possible_truncation)]
    let whole_int = whole as i128;
    match int.cmp(&whole_int) {
        Ordering::Equal if float > whole => Ordering::Less,
        Ordering::Equal if float < whole => Ordering::Greater,
        other => other,
    }
}

/// The order of two numbers by value; `None` only for a number past `f64`.
pub(super) fn compare(a: &Number, b: &Number) -> Option<Ordering> {
    Some(match (exact(a)?, exact(b)?) {
        (Exact::Int(x), Exact::Int(y)) => x.cmp(&y),
        (Exact::Int(x), Exact::Float(y)) => int_against_float(x, y),
        (Exact::Float(x), Exact::Int(y)) => int_against_float(y, x).reverse(),
        (Exact::Float(x), Exact::Float(y)) => x.partial_cmp(&y)?,
    })
}

/// Whether two numbers are the same value (`1 == 1.0`).
pub(super) fn equal(a: &Number, b: &Number) -> bool {
    compare(a, b) == Some(Ordering::Equal)
}

/// Whether the number is an integer by value, as drafts 6 and later count it: `1.0` is one.
pub(super) fn is_integer(n: &Number) -> bool {
    n.is_u64() || n.is_i64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
}

/// The largest integer `f64` holds exactly; integer division is exact below it.
const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_992.0;

/// A `multipleOf` divisor, read once when the schema is compiled.
#[derive(Clone, Copy, Debug)]
pub(super) struct MultipleOf(pub(super) f64);

impl MultipleOf {
    /// Whether `n` divided by the divisor is an integer.
    pub(super) fn divides(self, n: &Number) -> bool {
        let divisor = self.0;
        if divisor.fract() == 0.0 {
            // A whole divisor: integers by integer remainder, which is exact.
            if divisor <= MAX_SAFE_INTEGER {
                #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                let whole = divisor as u64;
                if let Some(u) = n.as_u64() {
                    return u % whole == 0;
                }
                if let Some(i) = n.as_i64() {
                    return i.unsigned_abs() % whole == 0;
                }
            }
            // A float's remainder (`%`) is exact too.
            return n
                .as_f64()
                .is_some_and(|f| f.fract() == 0.0 && f % divisor == 0.0);
        }
        let Some(value) = n.as_f64() else {
            return false;
        };
        if value == 0.0 {
            return true;
        }
        if value.abs() < divisor {
            return false;
        }
        // `0.1` means the decimal one tenth, not the binary fraction `f64` holds: divide the
        // decimals both print as, so `12.2` is a multiple of `0.1`.
        divides_as_decimals(value, divisor)
    }
}

/// `value` as `mantissa × 10^-decimals`, from its shortest decimal form (`12.2` is `122`, `1`).
fn decimal_parts(value: f64) -> Option<(i128, i32)> {
    let text = format!("{value:e}");
    let (digits, exponent) = text.split_once('e')?;
    let exponent: i32 = exponent.parse().ok()?;
    let negative = digits.starts_with('-');
    let mut mantissa: i128 = 0;
    let mut fraction_digits = 0_i32;
    let mut in_fraction = false;
    for byte in digits.bytes() {
        match byte {
            b'-' => {}
            b'.' => in_fraction = true,
            digit => {
                mantissa = mantissa
                    .checked_mul(10)?
                    .checked_add(i128::from(digit.checked_sub(b'0')?))?;
                fraction_digits += i32::from(in_fraction);
            }
        }
    }
    Some((
        if negative { -mantissa } else { mantissa },
        fraction_digits - exponent,
    ))
}

/// Whether `value / divisor` is an integer in the decimal reading of both, exactly at any
/// magnitude: with `value = v × 10^-a` and `divisor = d × 10^-b`, the quotient is
/// `(v / d) × 10^(b - a)`.
fn divides_as_decimals(value: f64, divisor: f64) -> bool {
    let (Some((v, a)), Some((d, b))) = (decimal_parts(value), decimal_parts(divisor)) else {
        return false;
    };
    if d == 0 {
        return false;
    }
    let d = d.abs();
    match u32::try_from(b - a) {
        // `d` divides `v × 10^k` when it divides `(v mod d) × (10^k mod d)`; both factors stay
        // below `d` (17 digits at most), so the product fits `i128`.
        Ok(k) => (v.rem_euclid(d) * pow10_mod(k, d)) % d == 0,
        // `v` (17 digits at most) is a multiple of `d × 10^k` only when that fits beside it.
        Err(_) => 10_i128
            .checked_pow((a - b).unsigned_abs())
            .and_then(|scale| scale.checked_mul(d))
            .is_some_and(|step| v % step == 0),
    }
}

/// `10^k mod m`, by squaring.
fn pow10_mod(mut k: u32, m: i128) -> i128 {
    let mut result = 1 % m;
    let mut base = 10 % m;
    while k > 0 {
        if k & 1 == 1 {
            result = result * base % m;
        }
        base = base * base % m;
        k >>= 1;
    }
    result
}

#[cfg(test)]
mod tests {
    use serde_json::{Number, json};

    use super::*;

    fn n(v: serde_json::Value) -> Number {
        match v {
            serde_json::Value::Number(n) => n,
            other => panic!("{other} is not a number"),
        }
    }

    #[test]
    fn numbers_compare_by_value() {
        assert!(equal(&n(json!(1)), &n(json!(1.0))));
        assert!(equal(&n(json!(-3)), &n(json!(-3.0))));
        assert_eq!(
            compare(&n(json!(i64::MAX)), &n(json!(9.223_372_036_854_776e18))),
            Some(Ordering::Less)
        );
        assert_eq!(
            compare(&n(json!(u64::MAX)), &n(json!(1.8446744073709552e19))),
            Some(Ordering::Less)
        );
        assert_eq!(compare(&n(json!(2)), &n(json!(2.5))), Some(Ordering::Less));
        assert_eq!(
            compare(&n(json!(-2)), &n(json!(-2.5))),
            Some(Ordering::Greater)
        );
        assert!(is_integer(&n(json!(1.0))));
        assert!(!is_integer(&n(json!(1.5))));
    }

    #[test]
    fn multiples_are_decimal() {
        let tenth = MultipleOf(0.1);
        assert!(tenth.divides(&n(json!(12.2))));
        assert!(tenth.divides(&n(json!(1.1))));
        assert!(!tenth.divides(&n(json!(4.55))));
        assert!(MultipleOf(0.0001).divides(&n(json!(47.498))));
        assert!(MultipleOf(1e-16).divides(&n(json!(1e-15))));
        assert!(MultipleOf(0.5).divides(&n(json!(-6))));
        assert!(MultipleOf(2.0).divides(&n(json!(-4))));
        assert!(!MultipleOf(0.07).divides(&n(json!(1e300))));
        assert!(MultipleOf(0.5).divides(&n(json!(1e300))));
        // jsonschema says yes here, from the binary value of `1e300`; as decimals, 10^301 / 3
        // is not an integer.
        assert!(!MultipleOf(0.3).divides(&n(json!(1e300))));
        assert!(!MultipleOf(3e-300).divides(&n(json!(1e-300))));
        assert!(MultipleOf(1e-300).divides(&n(json!(3e-300))));
        assert!(!MultipleOf(2.0).divides(&n(json!(7))));
        assert!(!MultipleOf(1.0).divides(&n(json!(4.5))));
        assert!(MultipleOf(1.0).divides(&n(json!(4.0))));
    }
}
