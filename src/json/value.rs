//! The JSON value: [`Value`], [`Number`] (its exact text), [`Object`] (members in key order,
//! with the words a decoder was given shared), and the constructors code builds values with.
//!
//! Most objects are small (a JSON-RPC message has three to five members), so an object is one
//! vector kept sorted by key: building it allocates once, a lookup is a binary search, and reading
//! it is a walk along the vector. An insertion moves the members after its place, which for a
//! large object built in the worst order would cost time quadratic in its size; so an object that
//! grows past [`FLAT_MEMBERS_MAX`] members moves into a B-tree, where every insertion costs a
//! logarithm. Which of the two holds an object is invisible: the same members in the same order,
//! equal to each other, whatever their history. An object keeps no insertion order (JSON gives
//! members none; the encoder writes them in key order, so output is deterministic), and an
//! insertion under a key already there replaces its value.
//!
//! Only data: decoding and encoding are the sibling files' business.

use std::borrow::Cow;
use std::collections::{BTreeMap, btree_map};
use std::fmt;
use std::slice;
use std::vec;

use crate::decimal;

/// An object key: borrowed when the decoder was given a static copy of it (see [`Words`]) or
/// when code wrote a literal, owned otherwise.
pub type Key = Cow<'static, str>;

/// The text of a string value, shared the same way as a key.
pub type Text = Cow<'static, str>;

/// The static copy of a decoded key or string, when the caller has one. A decoder given the
/// words of a protocol (its keys, its method names) borrows them instead of allocating; this
/// module knows no such word itself.
pub type Words = fn(&str) -> Option<&'static str>;

/// No word is shared: every decoded key and string is owned.
pub fn no_words(_: &str) -> Option<&'static str> {
    None
}

/// The key or string for `text`: the static copy `words` has for it, owned otherwise.
pub(crate) fn shared(text: Cow<'_, str>, words: Words) -> Text {
    match words(&text) {
        Some(known) => Cow::Borrowed(known),
        None => Cow::Owned(text.into_owned()),
    }
}

/// A JSON value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    Null,
    Bool(bool),
    Number(Number),
    String(Text),
    Array(Vec<Value>),
    Object(Object),
}

impl Value {
    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// The number, if this is one.
    pub fn as_number(&self) -> Option<&Number> {
        match self {
            Value::Number(n) => Some(n),
            _ => None,
        }
    }

    /// The elements, if this is an array.
    pub fn as_array(&self) -> Option<&[Value]> {
        match self {
            Value::Array(items) => Some(items),
            _ => None,
        }
    }

    /// The members, if this is an object.
    pub fn as_object(&self) -> Option<&Object> {
        match self {
            Value::Object(map) => Some(map),
            _ => None,
        }
    }

    /// The member `key`, if this is an object that has it.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.as_object()?.get(key)
    }
}

/// The members of an object built in code: `members([("a", 1u64.into())])`. Each key must
/// appear once (a repeated key would silently replace the earlier member, so it is a bug in the
/// caller, caught in debug builds).
pub fn members<const N: usize>(members: [(&'static str, Value); N]) -> Object {
    let object: Object = members.into_iter().map(|(k, v)| (Cow::Borrowed(k), v)).collect();
    debug_assert_eq!(object.len(), N, "a key repeated in a JSON object built in code");
    object
}

/// An object built in code, as a value: `object([("a", 1u64.into())])`.
pub fn object<const N: usize>(members: [(&'static str, Value); N]) -> Value {
    Value::Object(self::members(members))
}

impl From<&str> for Value {
    fn from(s: &str) -> Self {
        Value::String(Cow::Owned(s.to_owned()))
    }
}

impl From<String> for Value {
    fn from(s: String) -> Self {
        Value::String(Cow::Owned(s))
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Self {
        Value::Bool(b)
    }
}

impl From<i64> for Value {
    fn from(n: i64) -> Self {
        Value::Number(Number::from(n))
    }
}

impl From<u64> for Value {
    fn from(n: u64) -> Self {
        Value::Number(Number::from(n))
    }
}

impl From<Object> for Value {
    fn from(map: Object) -> Self {
        Value::Object(map)
    }
}

impl From<Vec<Value>> for Value {
    fn from(items: Vec<Value>) -> Self {
        Value::Array(items)
    }
}

/// A JSON number, kept as its exact text. Only texts that match the RFC 8259 grammar can be
/// made into a `Number`, so an encoder never writes an invalid one (there is no NaN to write).
///
/// A text that is exactly how an `i64` prints (`0`, `-12`; not `-0`, `1.0` or `1e2`) is stored
/// as that integer; any other text is stored as it came. Both write back the same bytes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Number(Repr);

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Repr {
    Int(i64),
    Text(Box<str>),
}

impl Number {
    /// The number `text` is, when it matches the RFC 8259 grammar exactly.
    pub fn parse(text: &str) -> Option<Number> {
        (number_len(text.as_bytes()) == Some(text.len())).then(|| Number::from_text(text))
    }

    /// A number from text the grammar has already accepted.
    pub(super) fn from_text(text: &str) -> Number {
        match integer_value(text) {
            Some(n) if text != "-0" => Number(Repr::Int(n)),
            _ => Number(Repr::Text(text.into())),
        }
    }

    /// Appends the number's text.
    pub fn write_to(&self, out: &mut String) {
        match &self.0 {
            Repr::Int(n) => {
                if *n < 0 {
                    out.push('-');
                }
                decimal::push_str(out, n.unsigned_abs());
            }
            Repr::Text(text) => out.push_str(text),
        }
    }

    pub fn as_i64(&self) -> Option<i64> {
        match &self.0 {
            Repr::Int(n) => Some(*n),
            Repr::Text(text) => integer_value(text),
        }
    }

    pub fn as_u64(&self) -> Option<u64> {
        match &self.0 {
            Repr::Int(n) => u64::try_from(*n).ok(),
            Repr::Text(text) => decimal::parse_u64(text.as_bytes()),
        }
    }

    /// The integer the number stands for, however it is spelled (`2`, `2.0`, `2e0`, `20e-1`), when
    /// it is whole and fits an `i64`: numbers compared as numbers.
    pub fn as_whole(&self) -> Option<i64> {
        match &self.0 {
            Repr::Int(n) => Some(*n),
            Repr::Text(text) => decimal::json_integer(text),
        }
    }
}

/// The `i64` an integer text (`-?DIGITS`) names, when it fits; `-0` is 0.
fn integer_value(text: &str) -> Option<i64> {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let magnitude = decimal::parse_u64(digits.as_bytes())?;
    if negative { 0i64.checked_sub_unsigned(magnitude) } else { i64::try_from(magnitude).ok() }
}

impl From<i64> for Number {
    fn from(n: i64) -> Self {
        Number(Repr::Int(n))
    }
}

impl From<u64> for Number {
    fn from(n: u64) -> Self {
        match i64::try_from(n) {
            Ok(n) => Number(Repr::Int(n)),
            Err(_) => Number(Repr::Text(n.to_string().into())),
        }
    }
}

impl std::fmt::Display for Number {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            Repr::Int(n) => write!(f, "{n}"),
            Repr::Text(text) => f.write_str(text),
        }
    }
}

/// The length of the RFC 8259 number at the start of `bytes`, if one is there:
/// `[ "-" ] ( "0" / [1-9] *DIGIT ) [ "." 1*DIGIT ] [ ( "e" / "E" ) [ "+" / "-" ] 1*DIGIT ]`.
/// A leading zero followed by a digit is not a number.
pub(crate) fn number_len(bytes: &[u8]) -> Option<usize> {
    let digits_from = |i: usize| bytes[i..].iter().take_while(|b| b.is_ascii_digit()).count();
    let mut i = usize::from(bytes.first() == Some(&b'-'));
    match bytes.get(i) {
        Some(b'0') => {
            i += 1;
            if bytes.get(i).is_some_and(u8::is_ascii_digit) {
                return None;
            }
        }
        Some(b'1'..=b'9') => i += digits_from(i),
        _ => return None,
    }
    if bytes.get(i) == Some(&b'.') {
        let n = digits_from(i + 1);
        if n == 0 {
            return None;
        }
        i += 1 + n;
    }
    if matches!(bytes.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(bytes.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let n = digits_from(i);
        if n == 0 {
            return None;
        }
        i += n;
    }
    Some(i)
}

// Objects.

/// The most members an object keeps in its sorted vector; one more moves it into a B-tree.
pub const FLAT_MEMBERS_MAX: usize = 16;

/// The members an object's first allocation has room for.
const FIRST_ROOM: usize = 4;

/// A JSON object: keys in sorted order, each at most once.
#[derive(Clone, Default)]
pub struct Object(Members);

#[derive(Clone)]
enum Members {
    /// Sorted by key, at most [`FLAT_MEMBERS_MAX`] of them.
    Flat(Vec<(Key, Value)>),
    Tree(BTreeMap<Key, Value>),
}

impl Default for Members {
    fn default() -> Self {
        Members::Flat(Vec::new())
    }
}

impl Object {
    /// An empty object (no allocation until the first member).
    pub const fn new() -> Object {
        Object(Members::Flat(Vec::new()))
    }

    /// How many members it has.
    pub fn len(&self) -> usize {
        match &self.0 {
            Members::Flat(members) => members.len(),
            Members::Tree(members) => members.len(),
        }
    }

    /// True when it has none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The value of member `key`.
    pub fn get(&self, key: &str) -> Option<&Value> {
        match &self.0 {
            // At most a few members: comparing lengths first rules most of them out without
            // looking at their bytes, which a binary search would compare at every step.
            Members::Flat(members) => {
                let same = |k: &Key| k.len() == key.len() && **k == *key;
                members.iter().find(|(k, _)| same(k)).map(|(_, value)| value)
            }
            Members::Tree(members) => members.get(key),
        }
    }

    /// True when it has member `key`.
    pub fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// Sets member `key`, returning the value it replaces.
    pub fn insert(&mut self, key: Key, value: Value) -> Option<Value> {
        let members = match &mut self.0 {
            Members::Tree(members) => return members.insert(key, value),
            Members::Flat(members) => members,
        };
        match members.binary_search_by(|(k, _)| key_order(k, &key)) {
            Ok(at) => members.get_mut(at).map(|(_, old)| std::mem::replace(old, value)),
            Err(_) if members.len() >= FLAT_MEMBERS_MAX => {
                let mut tree: BTreeMap<Key, Value> = std::mem::take(members).into_iter().collect();
                tree.insert(key, value);
                self.0 = Members::Tree(tree);
                None
            }
            Err(at) => {
                if members.capacity() == 0 {
                    // Room for a JSON-RPC message's members in the first allocation.
                    members.reserve_exact(FIRST_ROOM);
                }
                members.insert(at, (key, value));
                None
            }
        }
    }

    /// The members, in key order.
    pub fn iter(&self) -> Iter<'_> {
        match &self.0 {
            Members::Flat(members) => Iter::Flat(members.iter()),
            Members::Tree(members) => Iter::Tree(members.iter()),
        }
    }

    /// The keys, in order.
    pub fn keys(&self) -> impl Iterator<Item = &Key> {
        self.iter().map(|(key, _)| key)
    }

    /// The values, in key order.
    pub fn values(&self) -> impl Iterator<Item = &Value> {
        self.iter().map(|(_, value)| value)
    }

    /// True when it holds its members in a B-tree (for the tests of the switch).
    #[cfg(test)]
    fn is_tree(&self) -> bool {
        matches!(self.0, Members::Tree(_))
    }
}

/// The order of keys, the same as `str`'s (byte by byte), decided by the first bytes alone
/// when they differ, as they do between most keys, without a call to compare the rest.
fn key_order(a: &str, b: &str) -> std::cmp::Ordering {
    match (a.as_bytes().first(), b.as_bytes().first()) {
        (Some(x), Some(y)) if x != y => x.cmp(y),
        _ => a.cmp(b),
    }
}

/// The members of an [`Object`], borrowed, in key order.
pub enum Iter<'o> {
    Flat(slice::Iter<'o, (Key, Value)>),
    Tree(btree_map::Iter<'o, Key, Value>),
}

impl<'o> Iterator for Iter<'o> {
    type Item = (&'o Key, &'o Value);

    fn next(&mut self) -> Option<Self::Item> {
        match self {
            Iter::Flat(members) => members.next().map(|(key, value)| (key, value)),
            Iter::Tree(members) => members.next(),
        }
    }
}

/// The members of an [`Object`], owned, in key order.
pub enum IntoIter {
    Flat(vec::IntoIter<(Key, Value)>),
    Tree(btree_map::IntoIter<Key, Value>),
}

impl Iterator for IntoIter {
    type Item = (Key, Value);

    fn next(&mut self) -> Option<Self::Item> {
        match self {
            IntoIter::Flat(members) => members.next(),
            IntoIter::Tree(members) => members.next(),
        }
    }
}

impl IntoIterator for Object {
    type Item = (Key, Value);
    type IntoIter = IntoIter;

    fn into_iter(self) -> IntoIter {
        match self.0 {
            Members::Flat(members) => IntoIter::Flat(members.into_iter()),
            Members::Tree(members) => IntoIter::Tree(members.into_iter()),
        }
    }
}

impl<'o> IntoIterator for &'o Object {
    type Item = (&'o Key, &'o Value);
    type IntoIter = Iter<'o>;

    fn into_iter(self) -> Iter<'o> {
        self.iter()
    }
}

impl FromIterator<(Key, Value)> for Object {
    fn from_iter<I: IntoIterator<Item = (Key, Value)>>(members: I) -> Object {
        let mut object = Object::new();
        object.extend(members);
        object
    }
}

impl Extend<(Key, Value)> for Object {
    fn extend<I: IntoIterator<Item = (Key, Value)>>(&mut self, members: I) {
        for (key, value) in members {
            self.insert(key, value);
        }
    }
}

/// Equal when they hold the same members, whichever way each is stored.
impl PartialEq for Object {
    fn eq(&self, other: &Object) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl Eq for Object {}

impl fmt::Debug for Object {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn number_text_is_validated() {
        let big = ["9223372036854775807", "-9223372036854775808", "9223372036854775808"];
        for ok in ["0", "-0", "1", "-12", "1.5", "1e5", "1E+5", "-1.25e-10"].into_iter().chain(big)
        {
            let number = Number::parse(ok);
            assert_eq!(number.as_ref().map(Number::to_string), Some(ok.to_owned()));
            let mut written = String::new();
            number.iter().for_each(|n| n.write_to(&mut written));
            assert_eq!(written, ok);
        }
        for bad in ["", "-", "01", "1.", ".5", "+1", "1e", "NaN", "Infinity", " 1", "1 ", "0x1"] {
            assert_eq!(Number::parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn integers_equal_their_text_only_when_the_text_is_how_they_print() {
        let same = |a: &str, b: Number| Number::parse(a) == Some(b);
        assert!(same("-12", Number::from(-12i64)));
        assert!(same("0", Number::from(0u64)));
        assert!(same("18446744073709551615", Number::from(u64::MAX)));
        assert!(!same("-0", Number::from(0i64)));
        assert!(!same("1.0", Number::from(1i64)));
        assert!(!same("1e2", Number::from(100i64)));
    }

    #[test]
    fn text_is_borrowed_only_when_the_words_have_a_static_copy() {
        fn words(text: &str) -> Option<&'static str> {
            (text == "jsonrpc").then_some("jsonrpc")
        }
        assert!(matches!(shared(Cow::Borrowed("jsonrpc"), words), Cow::Borrowed("jsonrpc")));
        assert!(matches!(shared(Cow::Owned("jsonrpc".into()), words), Cow::Borrowed("jsonrpc")));
        assert!(
            matches!(shared(Cow::Borrowed("jsonrpc "), words), Cow::Owned(k) if k == "jsonrpc ")
        );
        assert!(
            matches!(shared(Cow::Borrowed("jsonrpc"), no_words), Cow::Owned(k) if k == "jsonrpc")
        );
    }

    #[test]
    fn integers_convert_with_checked_arithmetic() {
        let cases: [(&str, Option<i64>, Option<u64>); 8] = [
            ("0", Some(0), Some(0)),
            ("-0", Some(0), None),
            ("9223372036854775807", Some(i64::MAX), Some(i64::MAX as u64)),
            ("-9223372036854775808", Some(i64::MIN), None),
            ("9223372036854775808", None, Some(9223372036854775808)),
            ("18446744073709551616", None, None),
            ("1.0", None, None),
            ("1e2", None, None),
        ];
        for (text, as_i64, as_u64) in cases {
            let n = Number::parse(text).unwrap();
            assert_eq!((n.as_i64(), n.as_u64()), (as_i64, as_u64), "{text}");
        }
    }

    // Objects.

    fn key(n: usize) -> Key {
        Cow::Owned(format!("k{n:03}"))
    }

    #[test]
    fn members_stay_sorted_and_unique_across_the_switch_to_a_tree() {
        // Ascending, descending and interleaved insertion orders, each past the switch.
        let count = FLAT_MEMBERS_MAX * 3;
        let orders: [Vec<usize>; 3] = [
            (0..count).collect(),
            (0..count).rev().collect(),
            (0..count).map(|i| (i * 7) % count).collect(),
        ];
        for order in orders {
            let mut object = Object::new();
            let mut reference = BTreeMap::new();
            for (step, &n) in order.iter().enumerate() {
                assert_eq!(object.insert(key(n), Value::from(n as u64)), None);
                reference.insert(key(n), Value::from(n as u64));
                assert_eq!(
                    object.is_tree(),
                    step + 1 > FLAT_MEMBERS_MAX,
                    "after {} inserts",
                    step + 1
                );
                assert!(object.iter().eq(reference.iter()), "{order:?} at {step}");
            }
            for n in 0..count {
                assert_eq!(object.get(&key(n)), Some(&Value::from(n as u64)));
                assert_eq!(object.insert(key(n), Value::Null), Some(Value::from(n as u64)));
            }
            assert_eq!(object.len(), count);
            assert_eq!(object.get("missing"), None);
            assert!(object.into_iter().map(|(k, _)| k).eq(reference.into_keys()));
        }
    }

    #[test]
    fn key_order_is_the_order_of_str() {
        let keys = ["", "a", "aa", "ab", "b", "id", "jsonrpc", "method", "é", "\u{0}", "Z"];
        for a in keys {
            for b in keys {
                assert_eq!(key_order(a, b), a.cmp(b), "{a:?} {b:?}");
            }
        }
    }

    #[test]
    fn equality_does_not_depend_on_insertion_order_on_either_side_of_the_switch() {
        for count in [3, FLAT_MEMBERS_MAX + 1] {
            let forward: Object = (0..count).map(|n| (key(n), Value::Null)).collect();
            let backward: Object = (0..count).rev().map(|n| (key(n), Value::Null)).collect();
            assert_eq!(forward.is_tree(), count > FLAT_MEMBERS_MAX);
            assert_eq!(forward, backward);
            assert_eq!(format!("{forward:?}"), format!("{backward:?}"));
            let mut changed = backward.clone();
            changed.insert(key(1), Value::Bool(true));
            assert_ne!(changed, forward);
        }
    }
}
