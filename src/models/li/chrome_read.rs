//! Reading a Chrome trace's events (docs/li-traces.md, "Reading") into
//! compact records, one event at a time as the JSON streams past: no
//! event is held as parsed JSON, strings are interned (a borrowed text's
//! unescaped strings are not even copied), and a gzipped file is inflated
//! twice instead of once held, so the import's memory grows with what it
//! keeps, not with the file's text. What it keeps is bounded by
//! `MAX_EVENTS`, `MAX_LANES` and `MAX_HELD_BYTES`.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::io::{self, BufReader, Read};
use std::marker::PhantomData;

use flate2::read::GzDecoder;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;

use super::chrome::{Target, MAX_EVENTS};
use super::chrome_error::TraceError;

/// The most lanes (pid, tid) a trace may have, with events or named by
/// metadata.
pub const MAX_LANES: usize = 10_000;
/// The most memory the events kept may take [B]: their records and their
/// distinct strings (144 MiB). With a trace's text (at most 256 MiB) and
/// the steps' lists made from the records, the import stays under 512 MB
/// (`cargo bench --bench budget -- trace_names`).
pub const MAX_HELD_BYTES: usize = 144 * 1024 * 1024;
/// Distinct ignored phases listed by name; the rest are counted together.
const MAX_PHASES_LISTED: usize = 64;
/// What a distinct string costs beyond its bytes [B]: its index entry and
/// its place in the table, with the index's spare room.
const STRING_COST: usize = 64;

/// An interned string: its index in `Trace::strings`.
pub(super) type Sym = u32;
/// No string.
pub(super) const NO: Sym = Sym::MAX;

/// What a slice is for the steps: a step marker, a step id's root (both
/// skipped as ops), or a rule's target.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Class {
    Marker,
    Root,
    To(Target),
}

/// A span of time on one lane: an `X` event or a `B`/`E` pair.
pub(super) struct Slice {
    pub lane: u32,
    /// Its place in the file, for ties.
    pub order: u32,
    pub name: Sym,
    /// `args.tensor`, else `args.name` (`NO`: neither).
    pub label: Sym,
    /// Its step id: `args.group_id`, else `args.step_num` (`NO`: none).
    pub step: Sym,
    pub class: Class,
    /// [µs]
    pub ts: f64,
    pub end: f64,
    /// [B] `args.bytes` and its synonyms; NaN: none (`size()`), so the
    /// record takes 48 bytes.
    pub bytes: f64,
}

/// A `B` or `E` before matching.
struct Edge {
    lane: u32,
    order: u32,
    begin: bool,
    name: Sym,
    tensor: Sym,
    arg_name: Sym,
    step: Sym,
    root: bool,
    /// `B`: its name is a step marker.
    marker: bool,
    /// `B`: where the rules send it.
    target: Target,
    ts: f64,
    /// NaN: none.
    bytes: f64,
}

pub(super) struct FlowPoint {
    /// (cat, id)
    pub key: (Sym, Sym),
    /// `s`, `t` or `f`.
    pub ph: u8,
    pub lane: u32,
    pub ts: f64,
    pub order: u32,
    /// Binds to the slice around it, not the next one.
    pub enclosing: bool,
}

pub(super) struct Lane {
    pub pid: Sym,
    pub tid: Sym,
    pub slices: usize,
}

/// A trace as read: its events' records and strings.
pub(super) struct Trace<'a> {
    /// [µs] Its first timestamp (0 if it has none).
    pub origin: f64,
    pub lanes: Vec<Lane>,
    /// Per lane: its name, and why it is skipped, if it is.
    pub names: Vec<String>,
    pub skipped: Vec<Option<String>>,
    pub slices: Vec<Slice>,
    pub flows: Vec<FlowPoint>,
    pub strings: Vec<Cow<'a, str>>,
    /// Entries of `traceEvents`.
    pub events: usize,
    pub ignored: BTreeMap<String, usize>,
    pub unmatched_end: usize,
    pub unclosed_begin: usize,
}

impl Slice {
    /// [B] Its size, if its args give one.
    pub fn size(&self) -> Option<f64> {
        (!self.bytes.is_nan()).then_some(self.bytes)
    }
}

impl Trace<'_> {
    /// Its strings copied, so it outlives the text read.
    fn owned(self) -> Trace<'static> {
        let strings = self
            .strings
            .into_iter()
            .map(|c| Cow::Owned(c.into_owned()))
            .collect();
        Trace {
            origin: self.origin,
            lanes: self.lanes,
            names: self.names,
            skipped: self.skipped,
            slices: self.slices,
            flows: self.flows,
            strings,
            events: self.events,
            ignored: self.ignored,
            unmatched_end: self.unmatched_end,
            unclosed_begin: self.unclosed_begin,
        }
    }

    pub fn str(&self, s: Sym) -> &str {
        self.strings.get(s as usize).map_or("", |c| c.as_ref())
    }
}

/// How events are classified as they are read: the mapping's rules.
pub(super) struct Rules<'m> {
    pub marker: &'m str,
    pub target: &'m dyn Fn(&str, &str) -> Target,
}

// ---- The file ---------------------------------------------------------------

/// A trace's text as found.
pub(super) enum Source<'a> {
    /// Text the caller holds (`chrome::import`).
    Text(&'a str),
    /// A file's text, owned: a bare array without its `]` is closed in
    /// place, not copied.
    Owned(String),
    /// A gzipped file too large to hold with its text: checked by a first
    /// inflation, read as a second one streams.
    Gzip(Vec<u8>, Shape),
}

/// The file's errors, as `read_bytes` gives them: gzip undone (at most
/// `limit` bytes of text), the size, UTF-8. A gzipped file over a quarter
/// of `limit` is not inflated into memory: its bytes and its text would
/// take up to twice the limit together.
pub(super) fn open(bytes: Vec<u8>, limit: u64) -> Result<Source<'static>, TraceError> {
    if bytes.starts_with(&[0x1f, 0x8b]) {
        if bytes.len() as u64 > limit / 4 {
            let shape = scan_gzip(&bytes, limit)?;
            return Ok(Source::Gzip(bytes, shape));
        }
        // The gzip trailer's size (mod 2^32) sizes the text, so it is not
        // grown by doubling.
        let hint = bytes
            .last_chunk::<4>()
            .map_or(0, |b| u64::from(u32::from_le_bytes(*b)));
        let mut out = Vec::with_capacity(hint.min(limit.saturating_add(1)) as usize);
        // One byte past the limit tells a file at the limit from a larger one.
        GzDecoder::new(bytes.as_slice())
            .take(limit.saturating_add(1))
            .read_to_end(&mut out)
            .map_err(|e| TraceError::Inflate(e.to_string()))?;
        drop(bytes);
        if out.len() as u64 > limit {
            return Err(TraceError::InflatesPast { limit });
        }
        return utf8(out).map(Source::Owned);
    }
    if bytes.len() as u64 > limit {
        return Err(TraceError::TooLarge {
            bytes: bytes.len() as u64,
            limit,
        });
    }
    utf8(bytes).map(Source::Owned)
}

fn utf8(bytes: Vec<u8>) -> Result<String, TraceError> {
    String::from_utf8(bytes).map_err(|e| TraceError::NotText {
        offset: e.utf8_error().valid_up_to(),
    })
}

impl Source<'_> {
    /// Its events, read as they stream past.
    pub fn read(&mut self, rules: &Rules) -> Result<Trace<'_>, TraceError> {
        match self {
            Source::Text(t) => read_text(t, rules),
            Source::Owned(text) => {
                let lead = text.len() - text.trim_start_matches('\u{feff}').trim_start().len();
                let t = text[lead..].trim_end();
                if t.starts_with('[') && !t.ends_with(']') {
                    let cut = lead + t.trim_end_matches(',').trim_end().len();
                    text.truncate(cut);
                    text.push(']');
                }
                read_text(text, rules)
            }
            Source::Gzip(bytes, shape) => read_gzip(bytes, shape, rules),
        }
    }
}

/// The events of `{"traceEvents": [...]}` or of a bare array (whose
/// closing `]` the format lets a writer leave out).
fn read_text<'a>(text: &'a str, rules: &Rules) -> Result<Trace<'a>, TraceError> {
    let t = text.trim_start_matches('\u{feff}').trim();
    if t.starts_with('[') {
        if t.ends_with(']') {
            return run(serde_json::Deserializer::from_str(t), true, rules);
        }
        let closed = format!("{}]", t.trim_end_matches(',').trim_end());
        return run(serde_json::Deserializer::from_str(&closed), true, rules).map(Trace::owned);
    }
    run(serde_json::Deserializer::from_str(t), false, rules)
}

/// What the first inflation learnt of a gzipped trace's text: where the
/// text `read_text` would parse starts and ends, and whether it is a bare
/// array without its `]` (then where its trailing commas start).
pub(super) struct Shape {
    /// Bytes before it: byte-order marks, then whitespace.
    lead: u64,
    /// Its end, trailing whitespace left out.
    end: u64,
    /// It starts with `[`: a bare array.
    bare: bool,
    /// A bare array missing its `]`: the end of what is kept before the
    /// `]` is added.
    open_end: Option<u64>,
}

/// The run kinds after the text's last character that is neither
/// whitespace nor a comma.
#[derive(Clone, Copy, PartialEq)]
enum Run {
    Space,
    Comma,
}

/// Inflates the file without keeping its text: the errors `read_bytes`
/// gives, in its order (inflate, size, UTF-8), and the text's `Shape`.
fn scan_gzip(bytes: &[u8], limit: u64) -> Result<Shape, TraceError> {
    let mut z = GzDecoder::new(bytes).take(limit.saturating_add(1));
    let mut buf = vec![0u8; 1 << 16];
    // Bytes of an incomplete UTF-8 sequence carried to the next read.
    let mut carry = 0usize;
    let mut total = 0u64;
    let mut bad: Option<u64> = None;
    // Leading marks, then whitespace: 0 marks, 1 whitespace, 2 past.
    let mut lead_state = 0u8;
    let mut lead = 0u64;
    let mut first: Option<char> = None;
    let mut last: Option<char> = None;
    // The last three runs after the last other character: kind, start.
    let mut runs: Vec<(Run, u64)> = Vec::new();
    loop {
        let n = match z.read(&mut buf[carry..]) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(TraceError::Inflate(e.to_string())),
        };
        let base = total - carry as u64;
        total += n as u64;
        if bad.is_some() {
            carry = 0;
            continue;
        }
        let chunk = &buf[..carry + n];
        let valid = match std::str::from_utf8(chunk) {
            Ok(s) => s,
            Err(e) => {
                if e.error_len().is_some() {
                    bad = Some(base + e.valid_up_to() as u64);
                }
                std::str::from_utf8(&chunk[..e.valid_up_to()]).unwrap_or_default()
            }
        };
        let used = valid.len();
        for (i, c) in valid.char_indices() {
            if lead_state == 2 {
                break;
            }
            if lead_state == 0 && c == '\u{feff}' {
                lead = base + (i + c.len_utf8()) as u64;
                continue;
            }
            lead_state = 1;
            if c.is_whitespace() {
                lead = base + (i + c.len_utf8()) as u64;
            } else {
                lead_state = 2;
                first = Some(c);
            }
        }
        // The tail: from the last other character on.
        let other = valid
            .char_indices()
            .rev()
            .find(|&(_, c)| !(c.is_whitespace() || c == ','));
        let from = match other {
            Some((i, c)) => {
                runs.clear();
                last = Some(c);
                i + c.len_utf8()
            }
            None => 0,
        };
        for (i, c) in valid[from..].char_indices() {
            let kind = if c == ',' { Run::Comma } else { Run::Space };
            if runs.last().map(|r| r.0) != Some(kind) {
                if runs.len() == 3 {
                    runs.remove(0);
                }
                runs.push((kind, base + (from + i) as u64));
            }
        }
        carry = chunk.len() - used;
        if carry > 0 {
            buf.copy_within(used..used + carry, 0);
        }
    }
    if total > limit {
        return Err(TraceError::InflatesPast { limit });
    }
    if carry > 0 && bad.is_none() {
        bad = Some(total - carry as u64);
    }
    if let Some(offset) = bad {
        return Err(TraceError::NotText {
            offset: offset as usize,
        });
    }
    // `trim`: trailing whitespace; then, for an open array, commas and
    // whitespace again.
    let mut tail = runs.as_slice();
    let mut end = total;
    cut(&mut tail, Run::Space, &mut end);
    let end = end.max(lead);
    let open = first == Some('[') && !(tail.is_empty() && last == Some(']'));
    let open_end = open.then(|| {
        let mut at = end;
        cut(&mut tail, Run::Comma, &mut at);
        cut(&mut tail, Run::Space, &mut at);
        at.max(lead)
    });
    Ok(Shape {
        lead,
        end,
        bare: first == Some('['),
        open_end,
    })
}

/// Drops `tail`'s last run if it is of `kind`, moving `at` to its start.
fn cut(tail: &mut &[(Run, u64)], kind: Run, at: &mut u64) {
    if let Some((&(k, start), rest)) = tail.split_last() {
        if k == kind {
            *at = start;
            *tail = rest;
        }
    }
}

/// The second inflation, parsed as it streams: `Shape`'s part of the text.
fn read_gzip<'a>(bytes: &[u8], shape: &Shape, rules: &Rules) -> Result<Trace<'a>, TraceError> {
    let mut z = BufReader::with_capacity(1 << 16, GzDecoder::new(bytes));
    // `scan_gzip` inflated these bytes already: no error is left to meet.
    io::copy(&mut (&mut z).take(shape.lead), &mut io::sink())
        .map_err(|e| TraceError::Inflate(e.to_string()))?;
    match shape.open_end {
        Some(at) => {
            let r = z.take(at - shape.lead).chain(&b"]"[..]);
            run(serde_json::Deserializer::from_reader(r), true, rules)
        }
        None => {
            let r = z.take(shape.end - shape.lead);
            run(serde_json::Deserializer::from_reader(r), shape.bare, rules)
        }
    }
}

/// Parses a document (`bare`: an array of events) and checks nothing
/// follows it; a limit reached while reading is its own error.
fn run<'de, R: serde_json::de::Read<'de>>(
    mut de: serde_json::Deserializer<R>,
    bare: bool,
    rules: &Rules,
) -> Result<Trace<'de>, TraceError> {
    let mut b = Builder::new(rules);
    let parsed = if bare {
        EventsSeed(&mut b).deserialize(&mut de).map(|()| true)
    } else {
        DocumentSeed(&mut b).deserialize(&mut de)
    }
    .and_then(|has| de.end().map(|()| has));
    if let Some(e) = b.stop.take() {
        return Err(e);
    }
    let has_events = parsed.map_err(|e| TraceError::Json(e.to_string()))?;
    if !has_events {
        return Err(TraceError::NoEvents);
    }
    if let Some(e) = b.failed.take() {
        return Err(e);
    }
    Ok(b.finish())
}

// ---- The document -------------------------------------------------------------

/// `{"traceEvents": [...]}`, other keys ignored; true if it has the array.
struct DocumentSeed<'b, 'r, 'de>(&'b mut Builder<'r, 'de>);

impl<'de> DeserializeSeed<'de> for DocumentSeed<'_, '_, 'de> {
    type Value = bool;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
        d.deserialize_struct("Document", &["traceEvents"], self)
    }
}

impl<'de> Visitor<'de> for DocumentSeed<'_, '_, 'de> {
    type Value = bool;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("struct Document")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
        let mut seen = false;
        let mut has = false;
        while let Some(is_events) = map.next_key_seed(EventsKey)? {
            if !is_events {
                map.next_value::<IgnoredAny>()?;
                continue;
            }
            if seen {
                return Err(de::Error::duplicate_field("traceEvents"));
            }
            seen = true;
            has = map.next_value_seed(OptionalEvents(&mut *self.0))?;
        }
        Ok(has)
    }
}

/// A key of the document: is it `traceEvents`?
struct EventsKey;

impl<'de> DeserializeSeed<'de> for EventsKey {
    type Value = bool;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
        d.deserialize_identifier(self)
    }
}

impl<'de> Visitor<'de> for EventsKey {
    type Value = bool;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("field identifier")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<bool, E> {
        Ok(v == "traceEvents")
    }
}

/// `traceEvents`, which may be null (then there are none).
struct OptionalEvents<'b, 'r, 'de>(&'b mut Builder<'r, 'de>);

impl<'de> DeserializeSeed<'de> for OptionalEvents<'_, '_, 'de> {
    type Value = bool;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
        d.deserialize_option(self)
    }
}

impl<'de> Visitor<'de> for OptionalEvents<'_, '_, 'de> {
    type Value = bool;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("option")
    }
    fn visit_none<E: de::Error>(self) -> Result<bool, E> {
        Ok(false)
    }
    fn visit_unit<E: de::Error>(self) -> Result<bool, E> {
        Ok(false)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
        EventsSeed(self.0).deserialize(d).map(|()| true)
    }
}

/// The array of events, each handed to the builder as it is read.
struct EventsSeed<'b, 'r, 'de>(&'b mut Builder<'r, 'de>);

impl<'de> DeserializeSeed<'de> for EventsSeed<'_, '_, 'de> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for EventsSeed<'_, '_, 'de> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of trace events")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(e) = seq.next_element::<RawEvent<'de>>()? {
            self.0.push(e).map_err(de::Error::custom)?;
        }
        Ok(())
    }
}

// ---- One event ----------------------------------------------------------------

/// One event, only the fields the import reads; strings borrowed from the
/// text where it has them unescaped.
#[derive(Deserialize)]
struct RawEvent<'a> {
    #[serde(default, borrow, deserialize_with = "text")]
    name: Option<Cow<'a, str>>,
    #[serde(default, borrow, deserialize_with = "text")]
    cat: Option<Cow<'a, str>>,
    #[serde(default, borrow, deserialize_with = "text")]
    ph: Option<Cow<'a, str>>,
    #[serde(default, deserialize_with = "micros")]
    ts: Option<f64>,
    #[serde(default, deserialize_with = "micros")]
    dur: Option<f64>,
    #[serde(default, borrow, deserialize_with = "text")]
    pid: Option<Cow<'a, str>>,
    #[serde(default, borrow, deserialize_with = "text")]
    tid: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    args: Option<RawArgs<'a>>,
    #[serde(default, borrow, deserialize_with = "text")]
    id: Option<Cow<'a, str>>,
    #[serde(default, borrow, deserialize_with = "text")]
    bp: Option<Cow<'a, str>>,
}

#[derive(Default, Deserialize)]
struct RawArgs<'a> {
    #[serde(default, borrow)]
    name: Option<ArgText<'a>>,
    #[serde(default, borrow)]
    tensor: Option<ArgText<'a>>,
    #[serde(default)]
    bytes: Option<ArgNumber>,
    #[serde(default)]
    size: Option<ArgNumber>,
    #[serde(default)]
    num_bytes: Option<ArgNumber>,
    #[serde(default, rename = "Bytes")]
    bytes_title: Option<ArgNumber>,
    /// TensorFlow's profiler: the step an event belongs to, and the step
    /// number its step's root event carries.
    #[serde(default, borrow)]
    group_id: Option<ArgId<'a>>,
    #[serde(default, borrow)]
    step_num: Option<ArgId<'a>>,
}

/// Any JSON value, skipped without being built, as `None`: through
/// `deserialize_any`, so nesting meets serde_json's recursion limit as a
/// `serde_json::Value` there would.
macro_rules! skip_others {
    ($t:ty) => {
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<$t, E> {
            Ok(None)
        }
        fn visit_unit<E: de::Error>(self) -> Result<$t, E> {
            Ok(None)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<$t, A::Error> {
            while a.next_element::<Skip>()?.is_some() {}
            Ok(None)
        }
        fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<$t, A::Error> {
            while a.next_entry::<Skip, Skip>()?.is_some() {}
            Ok(None)
        }
    };
}

/// A value skipped as `skip_others` says.
struct Skip;

impl<'de> Deserialize<'de> for Skip {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Option<()>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any value")
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
                Ok(None)
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
                Ok(None)
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
                Ok(None)
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
                Ok(None)
            }
            skip_others!(Self::Value);
        }
        d.deserialize_any(V).map(|_| Skip)
    }
}

/// An args value as text, else nothing: a string as it is (`ArgText`),
/// or, for a step id (`ArgId`), a string trimmed or a number as serde_json
/// writes it.
struct ArgStr<'a, const ID: bool>(Option<Cow<'a, str>>);

type ArgText<'a> = ArgStr<'a, false>;
type ArgId<'a> = ArgStr<'a, true>;

impl<'de: 'a, 'a, const ID: bool> Deserialize<'de> for ArgStr<'a, ID> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a, const ID: bool>(PhantomData<&'a ()>);
        impl<'de: 'a, 'a, const ID: bool> Visitor<'de> for V<'a, ID> {
            type Value = Option<Cow<'a, str>>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any value")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Some(Cow::Borrowed(if ID { v.trim() } else { v })))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Some(Cow::Owned(if ID { v.trim() } else { v }.to_owned())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                if ID {
                    self.visit_str(&v)
                } else {
                    Ok(Some(Cow::Owned(v)))
                }
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
                Ok(ID.then(|| Cow::Owned(serde_json::Number::from(v).to_string())))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
                Ok(ID.then(|| Cow::Owned(serde_json::Number::from(v).to_string())))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
                Ok(ID
                    .then(|| serde_json::Number::from_f64(v).map(|n| Cow::Owned(n.to_string())))
                    .flatten())
            }
            skip_others!(Self::Value);
        }
        d.deserialize_any(V::<ID>(PhantomData)).map(ArgStr)
    }
}

/// An args value read as a number: a JSON number, else nothing.
struct ArgNumber(Option<f64>);

impl<'de> Deserialize<'de> for ArgNumber {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Option<f64>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any value")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
                Ok(Some(v as f64))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
                Ok(Some(v as f64))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
                Ok(Some(v))
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
                Ok(None)
            }
            skip_others!(Self::Value);
        }
        d.deserialize_any(V).map(ArgNumber)
    }
}

/// A JSON scalar of an event field: writers differ on whether pid, tid,
/// id, ts and dur are numbers or strings.
enum Scalar<'a> {
    // Integers apart from floats, so a large id keeps every digit as text.
    Int(i64),
    UInt(u64),
    Float(f64),
    Bool(bool),
    Text(Cow<'a, str>),
}

/// A scalar, or `None` for null. `expected` names the field in errors.
fn scalar<'de, D: Deserializer<'de>>(
    d: D,
    expected: &'static str,
) -> Result<Option<Scalar<'de>>, D::Error> {
    // A visitor, not `#[serde(untagged)]`: that would buffer every field of
    // every event and lose the per-field "expected" in errors.
    struct V(&'static str);
    impl<'de> Visitor<'de> for V {
        type Value = Option<Scalar<'de>>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str(self.0)
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            d.deserialize_any(self)
        }
        fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
            Ok(Some(Scalar::Bool(v)))
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
            Ok(Some(Scalar::Int(v)))
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
            Ok(Some(Scalar::UInt(v)))
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
            Ok(Some(Scalar::Float(v)))
        }
        fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
            Ok(Some(Scalar::Text(Cow::Borrowed(v))))
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
            Ok(Some(Scalar::Text(Cow::Owned(v.to_owned()))))
        }
        fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
            Ok(Some(Scalar::Text(Cow::Owned(v))))
        }
    }
    d.deserialize_any(V(expected))
}

/// A number or a string, as text (pid, tid, id, names).
fn text<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Cow<'de, str>>, D::Error> {
    Ok(scalar(d, "a number or a string")?.map(|s| match s {
        Scalar::Int(v) => Cow::Owned(v.to_string()),
        Scalar::UInt(v) => Cow::Owned(v.to_string()),
        Scalar::Float(v) => Cow::Owned(v.to_string()),
        Scalar::Bool(v) => Cow::Owned(v.to_string()),
        Scalar::Text(v) => v,
    }))
}

/// A time [µs]: a number, or a string holding one.
fn micros<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    const EXPECTED: &str = "a number of µs";
    let Some(s) = scalar(d, EXPECTED)? else {
        return Ok(None);
    };
    match s {
        Scalar::Int(v) => Ok(Some(v as f64)),
        Scalar::UInt(v) => Ok(Some(v as f64)),
        Scalar::Float(v) => Ok(Some(v)),
        Scalar::Bool(v) => Err(de::Error::invalid_type(de::Unexpected::Bool(v), &EXPECTED)),
        Scalar::Text(v) => v
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|x| x.is_finite())
            .map(Some)
            .ok_or_else(|| de::Error::custom(format!("'{v}' is not a number of µs"))),
    }
}

/// What an event's args give the import.
#[derive(Default)]
struct Args<'a> {
    name: Option<Cow<'a, str>>,
    tensor: Option<Cow<'a, str>>,
    bytes: Option<f64>,
    /// Its step id: `group_id`, else `step_num`.
    step: Option<Cow<'a, str>>,
    /// It carries `step_num`: its step's root, which spans the step.
    step_root: bool,
}

impl<'a> Args<'a> {
    fn from(a: Option<RawArgs<'a>>) -> Args<'a> {
        let Some(a) = a else {
            return Args::default();
        };
        let bytes = [a.bytes, a.size, a.num_bytes, a.bytes_title]
            .into_iter()
            .filter_map(|v| v?.0)
            .find(|b| b.is_finite() && *b >= 0.0);
        let step_num = a.step_num.and_then(|v| v.0);
        Args {
            name: a.name.and_then(|v| v.0),
            tensor: a.tensor.and_then(|v| v.0),
            bytes,
            step_root: step_num.is_some(),
            step: a.group_id.and_then(|v| v.0).or(step_num),
        }
    }
}

/// Phases the import reads: complete, begin/end and flow events, metadata.
fn used_phase(ph: &str) -> bool {
    matches!(ph, "X" | "B" | "E" | "s" | "t" | "f" | "M")
}

// ---- Keeping events ---------------------------------------------------------------

/// The events kept so far, and what was counted.
struct Builder<'r, 'de> {
    rules: &'r Rules<'r>,
    index: HashMap<Cow<'de, str>, Sym>,
    /// Targets by (name, cat): the rules lowercase both, once per pair.
    targets: HashMap<(Sym, Sym), Target>,
    lane_ix: HashMap<(Sym, Sym), u32>,
    lanes: Vec<Lane>,
    process_names: HashMap<Sym, Sym>,
    thread_names: HashMap<(Sym, Sym), Sym>,
    slices: Vec<Slice>,
    edges: Vec<Edge>,
    flows: Vec<FlowPoint>,
    ignored: BTreeMap<String, usize>,
    total: usize,
    kept: usize,
    /// [B] What the kept events take, as `MAX_HELD_BYTES` counts it.
    held: usize,
    /// [µs] The earliest `ts` of an event other than metadata: where
    /// Perfetto's and chrome://tracing's timelines start.
    first_ts: Option<f64>,
    /// The first event the import cannot use; reported once the whole
    /// file has parsed (a malformed file says so first).
    failed: Option<TraceError>,
    /// A limit reached: reading stops.
    stop: Option<TraceError>,
}

const SLICE_BYTES: usize = std::mem::size_of::<Slice>();
const EDGE_BYTES: usize = std::mem::size_of::<Edge>();
const FLOW_BYTES: usize = std::mem::size_of::<FlowPoint>();
/// A lane, its index entry, its metadata names [B].
const LANE_BYTES: usize = 96;

impl<'r, 'de> Builder<'r, 'de> {
    fn new(rules: &'r Rules<'r>) -> Self {
        Builder {
            rules,
            index: HashMap::new(),
            targets: HashMap::new(),
            lane_ix: HashMap::new(),
            lanes: Vec::new(),
            process_names: HashMap::new(),
            thread_names: HashMap::new(),
            slices: Vec::new(),
            edges: Vec::new(),
            flows: Vec::new(),
            ignored: BTreeMap::new(),
            total: 0,
            kept: 0,
            held: 0,
            first_ts: None,
            failed: None,
            stop: None,
        }
    }

    fn sym(&mut self, s: Option<Cow<'de, str>>) -> Sym {
        let Some(s) = s else { return NO };
        if let Some(&k) = self.index.get(s.as_ref()) {
            return k;
        }
        let k = self.index.len() as Sym;
        self.held += STRING_COST
            + match &s {
                Cow::Owned(o) => o.len(),
                Cow::Borrowed(_) => 0,
            };
        self.index.insert(s, k);
        k
    }

    /// The lane of (pid, tid), made if new.
    fn lane(&mut self, pid: Sym, tid: Sym) -> Result<u32, TraceError> {
        if let Some(&l) = self.lane_ix.get(&(pid, tid)) {
            return Ok(l);
        }
        if self.lanes.len() == MAX_LANES {
            return Err(TraceError::TooManyLanes { limit: MAX_LANES });
        }
        let l = self.lanes.len() as u32;
        self.lane_ix.insert((pid, tid), l);
        self.lanes.push(Lane {
            pid,
            tid,
            slices: 0,
        });
        self.held += LANE_BYTES;
        Ok(l)
    }

    /// The sym of `s`, copied only if new.
    // A `Cow`, not a `&str`: a borrowed string is kept borrowed.
    #[allow(clippy::ptr_arg)]
    fn sym_of(&mut self, s: &Cow<'de, str>) -> Sym {
        match self.index.get(s.as_ref()) {
            Some(&k) => k,
            None => self.sym(Some(s.clone())),
        }
    }

    fn target(&mut self, name: &str, n: Sym, cat: Option<Cow<'de, str>>) -> Target {
        let cat = cat.unwrap_or_default();
        let c = self.sym_of(&cat);
        if let Some(&t) = self.targets.get(&(n, c)) {
            return t;
        }
        let t = (self.rules.target)(name, &cat);
        self.targets.insert((n, c), t);
        self.held += 24;
        t
    }

    /// Reads one event; an error stops the parse (`stop` says why, or the
    /// message is serde's).
    fn push(&mut self, e: RawEvent<'de>) -> Result<(), String> {
        let i = self.total;
        self.total += 1;
        let ph = e.ph.as_deref().unwrap_or_default();
        if let Some(ts) = e.ts.filter(|t| t.is_finite() && ph != "M") {
            self.first_ts = Some(self.first_ts.map_or(ts, |f: f64| f.min(ts)));
        }
        if !used_phase(ph) {
            let key = if ph.is_empty() { "(none)" } else { ph };
            let listed = self.ignored.len() < MAX_PHASES_LISTED;
            match self.ignored.get_mut(key) {
                Some(n) => *n += 1,
                None if listed => {
                    self.ignored.insert(key.to_string(), 1);
                }
                None => *self.ignored.entry("(others)".into()).or_insert(0) += 1,
            }
            return Ok(());
        }
        if self.kept == MAX_EVENTS {
            return Err(format!(
                "more than {MAX_EVENTS} events the import reads (complete, begin, end, flow, metadata), the most a trace may have"
            ));
        }
        self.kept += 1;
        if self.failed.is_some() {
            return Ok(());
        }
        let stop = |b: &mut Self, e: TraceError| {
            b.stop = Some(e);
            "a limit was reached".to_string()
        };
        if let Err(err) = self.keep(i, e) {
            return Err(stop(self, err));
        }
        if self.held > MAX_HELD_BYTES {
            let err = TraceError::HoldsTooMuch {
                limit: MAX_HELD_BYTES as u64,
                events: self.kept,
            };
            return Err(stop(self, err));
        }
        Ok(())
    }

    fn keep(&mut self, i: usize, e: RawEvent<'de>) -> Result<(), TraceError> {
        let RawEvent {
            name,
            cat,
            ph,
            ts,
            dur,
            pid,
            tid,
            args,
            id,
            bp,
        } = e;
        let ph = ph.unwrap_or_default();
        let name = name.unwrap_or_default();
        let pid = self.sym(Some(pid.unwrap_or_default()));
        let tid = self.sym(Some(tid.unwrap_or_default()));
        let what = |name: &str| format!("traceEvents[{i}] '{name}' (ph {ph})");
        if ph == "M" {
            let label = Args::from(args).name.unwrap_or_default();
            match name.as_ref() {
                "process_name" => {
                    let l = self.sym(Some(label));
                    if self.process_names.insert(pid, l).is_none() {
                        self.held += LANE_BYTES;
                        if self.process_names.len() > MAX_LANES {
                            return Err(TraceError::TooManyLanes { limit: MAX_LANES });
                        }
                    }
                }
                "thread_name" => {
                    let l = self.sym(Some(label));
                    if self.thread_names.insert((pid, tid), l).is_none() {
                        self.held += LANE_BYTES;
                        if self.thread_names.len() > MAX_LANES {
                            return Err(TraceError::TooManyLanes { limit: MAX_LANES });
                        }
                    }
                }
                _ => {}
            }
            return Ok(());
        }
        let start = match ts {
            Some(t) if t.is_finite() => t,
            _ => {
                self.failed = Some(TraceError::NoTs { event: what(&name) });
                return Ok(());
            }
        };
        let lane = self.lane(pid, tid)?;
        let order = i as u32;
        match ph.as_ref() {
            "X" => {
                let dur = match dur {
                    Some(d) if d.is_finite() && d >= 0.0 => d,
                    Some(dur) => {
                        let event = what(&name);
                        self.failed = Some(TraceError::NegativeDur { event, dur });
                        return Ok(());
                    }
                    None => {
                        self.failed = Some(TraceError::NoDur { event: what(&name) });
                        return Ok(());
                    }
                };
                let a = Args::from(args);
                let marker = self.marker(&name);
                let n = self.sym(Some(name.clone()));
                let class = if marker {
                    Class::Marker
                } else if a.step_root {
                    Class::Root
                } else {
                    Class::To(self.target(&name, n, cat))
                };
                // Only transfers and PS updates are named by their args.
                let named = matches!(class, Class::To(t) if t != Target::Worker && t != Target::Skip);
                let label = if named {
                    self.sym(a.tensor.or(a.name))
                } else {
                    NO
                };
                let step = self.sym(a.step);
                self.lanes[lane as usize].slices += 1;
                self.slices.push(Slice {
                    lane,
                    order,
                    name: n,
                    label,
                    step,
                    class,
                    ts: start,
                    end: start + dur,
                    bytes: a.bytes.unwrap_or(f64::NAN),
                });
                self.held += SLICE_BYTES;
            }
            "B" | "E" => {
                let begin = ph == "B";
                let a = Args::from(args);
                let (n, marker, target) = if begin {
                    let marker = self.marker(&name);
                    let n = self.sym(Some(name.clone()));
                    (n, marker, self.target(&name, n, cat))
                } else {
                    (NO, false, Target::Skip)
                };
                let edge = Edge {
                    lane,
                    order,
                    begin,
                    name: n,
                    tensor: self.sym(a.tensor),
                    arg_name: self.sym(a.name),
                    step: self.sym(a.step),
                    root: a.step_root,
                    marker,
                    target,
                    ts: start,
                    bytes: a.bytes.unwrap_or(f64::NAN),
                };
                self.edges.push(edge);
                self.held += EDGE_BYTES;
            }
            _ => {
                let key = (self.sym(cat), self.sym(Some(id.unwrap_or_default())));
                self.flows.push(FlowPoint {
                    key,
                    ph: ph.as_bytes().first().copied().unwrap_or(b's'),
                    lane,
                    ts: start,
                    order,
                    enclosing: ph != "f" || bp.as_deref() == Some("e"),
                });
                self.held += FLOW_BYTES;
            }
        }
        Ok(())
    }

    fn marker(&self, name: &str) -> bool {
        let m = self.rules.marker;
        !m.is_empty() && name.starts_with(m)
    }

    /// `B`/`E` pairs matched, lanes named: the trace as `build` reads it.
    fn finish(self) -> Trace<'de> {
        let Builder {
            index,
            mut lanes,
            process_names,
            thread_names,
            mut slices,
            mut edges,
            flows,
            ignored,
            total,
            first_ts,
            ..
        } = self;
        let mut unmatched_end = 0;
        let mut unclosed_begin = 0;
        // B/E pairs nest per lane, in time order.
        edges.sort_by(|a, b| {
            a.lane
                .cmp(&b.lane)
                .then(a.ts.total_cmp(&b.ts))
                .then(a.order.cmp(&b.order))
        });
        let mut open: Vec<Edge> = Vec::new();
        let mut lane = u32::MAX;
        for e in edges.drain(..) {
            if e.lane != lane {
                unclosed_begin += open.len();
                open.clear();
                lane = e.lane;
            }
            if e.begin {
                open.push(e);
                continue;
            }
            let Some(b) = open.pop() else {
                unmatched_end += 1;
                continue;
            };
            lanes[lane as usize].slices += 1;
            let pick = |x: Sym, y: Sym| if x != NO { x } else { y };
            let root = b.root || e.root;
            let class = if b.marker {
                Class::Marker
            } else if root {
                Class::Root
            } else {
                Class::To(b.target)
            };
            slices.push(Slice {
                lane,
                order: b.order,
                name: b.name,
                label: pick(pick(b.tensor, e.tensor), pick(b.arg_name, e.arg_name)),
                step: pick(b.step, e.step),
                class,
                ts: b.ts,
                end: e.ts,
                bytes: if b.bytes.is_nan() { e.bytes } else { b.bytes },
            });
        }
        unclosed_begin += open.len();
        drop(edges);
        let mut strings: Vec<Cow<'de, str>> = vec![Cow::Borrowed(""); index.len()];
        for (s, k) in index {
            strings[k as usize] = s;
        }
        let get = |k: Sym| strings.get(k as usize).map_or("", |c| c.as_ref());
        let mut names = Vec::new();
        let mut skipped = Vec::new();
        for l in &lanes {
            let p = process_names.get(&l.pid).map(|&k| get(k));
            let t = thread_names.get(&(l.pid, l.tid)).map(|&k| get(k));
            let name = match (p, t) {
                (Some(p), Some(t)) => format!("{p} / {t}"),
                (Some(x), None) | (None, Some(x)) => x.to_string(),
                (None, None) => String::new(),
            };
            let duplicate = [p, t]
                .into_iter()
                .flatten()
                .any(|n| n.to_lowercase().contains("stream:all"));
            skipped.push(
                duplicate
                    .then(|| "TensorFlow's copy of its per-stream lanes (stream:all)".to_string()),
            );
            names.push(name);
        }
        Trace {
            origin: first_ts.unwrap_or(0.0),
            lanes,
            names,
            skipped,
            slices,
            flows,
            strings,
            events: total,
            ignored,
            unmatched_end,
            unclosed_begin,
        }
    }
}

// The records' sizes `MAX_HELD_BYTES` was set with.
const _: () = assert!(SLICE_BYTES <= 48 && EDGE_BYTES <= 48 && FLOW_BYTES <= 32);
