//! What a plain (unquoted) scalar means, by the YAML 1.2 core schema: null, a boolean, an integer,
//! a float, or else a string. Quoted and block scalars are always strings.

use serde_json::{Number, Value};

/// The JSON value of a plain scalar's text.
pub fn resolve_plain(text: &str) -> Value {
    match text {
        "" | "~" | "null" | "Null" | "NULL" => Value::Null,
        "true" | "True" | "TRUE" => Value::Bool(true),
        "false" | "False" | "FALSE" => Value::Bool(false),
        // Numbers begin with a digit, a sign or a dot; most scalars of a spec are names.
        _ if text.starts_with(|c: char| c.is_ascii_alphabetic()) => Value::String(text.to_string()),
        _ => integer(text)
            .or_else(|| float(text))
            .unwrap_or_else(|| Value::String(text.to_string())),
    }
}

/// `[-+]?` then decimal digits without a leading zero, or `0b`, `0o` or `0x` and digits of that
/// base (as serde_yaml reads them, so that specs keep their meaning; `007` stays a string). One too
/// large for 64 bits becomes a float.
fn integer(text: &str) -> Option<Value> {
    let negative = text.starts_with('-');
    let unsigned = text.strip_prefix(['-', '+']).unwrap_or(text);
    let (digits, radix) = match unsigned.get(..2) {
        Some("0b") => (&unsigned[2..], 2),
        Some("0o") => (&unsigned[2..], 8),
        Some("0x") => (&unsigned[2..], 16),
        _ if unsigned.len() > 1 && unsigned.starts_with('0') => return None,
        _ => (unsigned, 10),
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    let magnitude = u64::from_str_radix(digits, radix).ok();
    let exact = match (magnitude, negative) {
        (Some(magnitude), false) => Some(Value::from(magnitude)),
        (Some(magnitude), true) => 0i64.checked_sub_unsigned(magnitude).map(Value::from),
        (None, _) => None,
    };
    Some(exact.unwrap_or_else(|| {
        let magnitude = match radix {
            10 => digits.parse::<f64>().unwrap_or(f64::NAN),
            _ => big_integer(digits, radix),
        };
        float_value(if negative { -magnitude } else { magnitude })
    }))
}

/// The value of digits too many for a u64, approximately, as YAML readers give it.
fn big_integer(digits: &str, radix: u32) -> f64 {
    digits.chars().fold(0.0, |total, c| {
        total * f64::from(radix) + f64::from(c.to_digit(radix).unwrap_or(0))
    })
}

/// `[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?`, or infinity or not-a-number.
fn float(text: &str) -> Option<Value> {
    let unsigned = text.strip_prefix(['-', '+']).unwrap_or(text);
    if matches!(unsigned, ".inf" | ".Inf" | ".INF") || matches!(text, ".nan" | ".NaN" | ".NAN") {
        // JSON has no infinity or NaN; serde_json turns them into null, and so does this.
        return Some(Value::Null);
    }
    let (mantissa, exponent) = match unsigned.find(['e', 'E']) {
        Some(at) => (&unsigned[..at], Some(&unsigned[at + 1..])),
        None => (unsigned, None),
    };
    let (whole, fraction) = match mantissa.split_once('.') {
        Some((whole, fraction)) => (whole, Some(fraction)),
        None => (mantissa, None),
    };
    let digits = |part: &str| part.bytes().all(|b| b.is_ascii_digit());
    let mantissa_ok = match fraction {
        // Digits alone are an integer form; one `integer` refused (`007`) is a string.
        None if exponent.is_none() => false,
        None => !whole.is_empty() && digits(whole),
        Some(fraction) if whole.is_empty() => !fraction.is_empty() && digits(fraction),
        Some(fraction) => digits(whole) && digits(fraction),
    };
    let exponent_ok = exponent.is_none_or(|exponent| {
        let exponent = exponent.strip_prefix(['-', '+']).unwrap_or(exponent);
        !exponent.is_empty() && digits(exponent)
    });
    (mantissa_ok && exponent_ok).then(|| float_value(text.parse::<f64>().unwrap_or(f64::NAN)))
}

fn float_value(number: f64) -> Value {
    Number::from_f64(number).map_or(Value::Null, Value::Number)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_core_schema_types_plain_scalars() {
        for (text, expected) in [
            ("", json!(null)),
            ("~", json!(null)),
            ("NULL", json!(null)),
            ("True", json!(true)),
            ("false", json!(false)),
            ("yes", json!("yes")),
            ("off", json!("off")),
            ("4789", json!(4789)),
            ("-12", json!(-12)),
            ("+12", json!(12)),
            ("007", json!("007")),
            ("-0x1f", json!(-31)),
            ("0o17", json!(15)),
            ("0x1F", json!(31)),
            ("0b101", json!(5)),
            ("0b2", json!("0b2")),
            ("1.20", json!(1.2)),
            (".5", json!(0.5)),
            ("1.", json!(1.0)),
            ("1e3", json!(1000.0)),
            ("-2.5E-1", json!(-0.25)),
            (".inf", json!(null)),
            (".nan", json!(null)),
            ("1.15.0", json!("1.15.0")),
            ("10.244.0.0/16", json!("10.244.0.0/16")),
            ("1e", json!("1e")),
            (".", json!(".")),
            ("-", json!("-")),
            ("0x", json!("0x")),
            ("v0.11.0", json!("v0.11.0")),
        ] {
            assert_eq!(resolve_plain(text), expected, "{text:?}");
        }
    }

    #[test]
    fn integers_beyond_64_bits_become_floats() {
        assert_eq!(
            resolve_plain("18446744073709551616"),
            json!(18446744073709551616.0)
        );
        assert_eq!(
            resolve_plain("-9223372036854775809"),
            json!(-9223372036854775809.0)
        );
        assert_eq!(
            resolve_plain("0xffffffffffffffffff"),
            json!(4722366482869645213696.0)
        );
    }
}
