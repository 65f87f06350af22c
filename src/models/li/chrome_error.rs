//! Why a Chrome trace did not become a profile (`chrome::import`), in the
//! words the page and the CLI show.

use super::chrome::MAX_AMOUNTS;
use super::profile::MAX_OPS;
use crate::errors::ReadError;

#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum TraceError {
    // ---- The mapping ----
    #[error("the link speed the trace was taken at must be more than 0 B/s, not {0}")]
    LinkSpeed(f64),
    #[error("the PS update rate must be more than 0 B/s, not {0}")]
    PsRate(f64),
    #[error("the batch must be at least 1 sample")]
    Batch,
    #[error("give both the start and the end of the step, or neither")]
    StepHalf,
    #[error(
        "the step must start at 0 ms or later and end after it starts, not {} to {} ms",
        ms(*.start_s),
        ms(*.end_s)
    )]
    StepOrder { start_s: f64, end_s: f64 },

    // ---- The file ----
    #[error("the file looks gzipped but does not inflate: {0}")]
    Inflate(String),
    #[error(
        "the gzipped trace inflates to more than {}, the most a trace may be",
        size_text(*.limit)
    )]
    InflatesPast { limit: u64 },
    #[error("the trace is {}, more than the {} accepted", size_text(*.bytes), size_text(*.limit))]
    TooLarge { bytes: u64, limit: u64 },
    #[error("the trace is neither gzip nor UTF-8 text (bad byte at offset {offset})")]
    NotText { offset: usize },
    /// serde_json's words, with the line and column.
    #[error("not a Chrome trace: {0}")]
    Json(String),
    #[error("not a Chrome trace: it has no \"traceEvents\" array")]
    NoEvents,
    #[error(
        "the trace has more than {limit} lanes (pid, tid pairs with events or names), the most a \
         trace may have"
    )]
    TooManyLanes { limit: usize },
    #[error(
        "the events the import reads take more than {} to hold ({events} events kept so far, \
         with their distinct names), the most a trace may take",
        size_text(*.limit)
    )]
    HoldsTooMuch { limit: u64, events: usize },

    // ---- Its events ----
    /// `event`: "traceEvents[i] 'name' (ph X)".
    #[error("{event} has no ts")]
    NoTs { event: String },
    #[error("{event}: dur {dur} µs is negative")]
    NegativeDur { event: String, dur: f64 },
    #[error("{event} has no dur")]
    NoDur { event: String },

    // ---- Its steps ----
    #[error(
        "'{name}' has no '{marker}' step markers and no step ids (args group_id, step_num): \
         give the step (the name of an event that spans one as the step marker, or the \
         step's start and end in ms), or clear the step marker to take the whole trace \
         ({} ms, start-up and warm-up included) as one step",
        ms(*.span_s)
    )]
    NoSteps {
        name: String,
        marker: String,
        span_s: f64,
    },
    #[error(
        "'{name}' has {steps} step{}, and its first {warmup} are left out as warm-up: none \
         is left. Lower the warm-up steps, or trace more steps",
        if *.steps == 1 { "" } else { "s" }
    )]
    AllWarmUp {
        name: String,
        steps: usize,
        warmup: u32,
    },
    #[error(
        "no event of '{name}' starts in the step given, {} to {} ms: the trace runs from 0 \
         to {} ms (after its first event)",
        ms(*.start_s),
        ms(*.end_s),
        ms(*.span_s)
    )]
    EmptyStep {
        name: String,
        start_s: f64,
        end_s: f64,
        span_s: f64,
    },

    // ---- The profile ----
    #[error(
        "no event of '{name}' maps to a resource{within}: {skipped} of {slices} slices were \
         skipped{}",
        if *.outside > 0 { format!(", {} started outside every step", .outside) } else { String::new() }
    )]
    NothingMapped {
        name: String,
        /// "", " inside a step marker" or " inside a step".
        within: &'static str,
        skipped: usize,
        slices: usize,
        outside: usize,
    },
    #[error(
        "'{name}' has no PS transfers (no event maps to downlink or uplink): choose a layer \
         table so its weights give the transfers, or add rules that map the trace's \
         transfer events"
    )]
    NoTransfers { name: String },
    #[error(
        "the first step of '{name}' has {ops} ops, more than the {MAX_OPS} accepted: add \
         rules that skip events"
    )]
    TooManyOps { name: String, ops: usize },
    #[error(
        "'{name}' gives {steps} profiled steps of {ops} amounts, {} amounts in all, more than \
         the {MAX_AMOUNTS} accepted: trace fewer steps, or add rules that skip events",
        *.steps * *.ops
    )]
    TooManyAmounts {
        name: String,
        steps: usize,
        ops: usize,
    },
    #[error("the profile made from '{name}' is not valid: {problem}")]
    Invalid { name: String, problem: String },
}

impl From<TraceError> for ReadError {
    fn from(e: TraceError) -> Self {
        ReadError::Content(e.to_string())
    }
}

/// "256 MiB", or bytes when not whole MiB.
pub(super) fn size_text(b: u64) -> String {
    const MIB: u64 = 1024 * 1024;
    if b.is_multiple_of(MIB) {
        format!("{} MiB", b / MIB)
    } else {
        format!("{b} bytes")
    }
}

/// [s] as ms, at most three decimals, no trailing zeros: "41200", "0.5".
pub(super) fn ms(s: f64) -> String {
    let t = format!("{:.3}", s * 1e3);
    let t = t.trim_end_matches('0').trim_end_matches('.');
    if t == "-0" {
        "0".into()
    } else {
        t.to_string()
    }
}
