//! The steps of a Chrome trace (docs/li-traces.md, "Steps"): a step given
//! by hand, else the events whose name starts with the step marker
//! (PyTorch's `ProfilerStep#N`), else the step ids TensorFlow's profiler
//! writes (`args.group_id`, `args.step_num`), else, when no marker is asked
//! for, the whole trace. The first steps found are warm-up.

use std::collections::HashMap;

use serde::Serialize;

use super::chrome::Mapping;
use super::chrome_error::TraceError;

/// Where a trace's steps came from.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum StepSource {
    /// [s after the trace's first event] One step given by hand.
    Given { start_s: f64, end_s: f64 },
    /// Events whose name starts with the step marker, on one lane.
    Markers,
    /// Events sharing an `args.group_id` (else `args.step_num`).
    Ids,
    /// No step marker asked for: the whole trace.
    WholeTrace,
}

/// A step marker as found: its span [µs] and lane.
pub(super) struct Marker {
    pub start: f64,
    pub end: f64,
    pub lane: usize,
}

/// What the trace offers to find its steps in.
pub(super) struct Clues<'a> {
    pub name: &'a str,
    pub markers: Vec<Marker>,
    /// (step id, start, end [µs]) of every slice that carries one.
    pub ids: Vec<(&'a str, f64, f64)>,
    /// [µs] The trace's first timestamp.
    pub origin: f64,
    /// [s] From the first timestamp to the last slice's end.
    pub span_s: f64,
}

/// A trace's steps, warm-up included, in time order.
pub(super) struct Steps<'a> {
    pub source: StepSource,
    /// [µs] Each step's start and end.
    spans: Vec<(f64, f64)>,
    by_id: HashMap<&'a str, usize>,
    /// The first this many steps are warm-up.
    pub warmup: usize,
    /// Markers on other lanes than the one used.
    pub markers_elsewhere: usize,
}

impl Steps<'_> {
    /// Steps found, warm-up included (0 for the whole trace).
    pub fn found(&self) -> usize {
        match self.source {
            StepSource::WholeTrace => 0,
            _ => self.spans.len(),
        }
    }

    /// Steps held, warm-up included (1 for the whole trace).
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    /// The step of an event starting at `ts` [µs] with step id `id`: its
    /// id's, else the latest step starting at or before `ts` if `ts` is
    /// before its end.
    pub fn of(&self, ts: f64, id: Option<&str>) -> Option<usize> {
        if let Some(&k) = id.and_then(|id| self.by_id.get(id)) {
            return Some(k);
        }
        let k = self.spans.partition_point(|s| s.0 <= ts);
        (k > 0 && ts < self.spans[k - 1].1).then(|| k - 1)
    }
}

/// The steps of a trace with these clues, read as `mapping` asks.
pub(super) fn find<'a>(mapping: &Mapping, clues: Clues<'a>) -> Result<Steps<'a>, TraceError> {
    let Clues {
        name,
        mut markers,
        ids,
        origin,
        span_s,
    } = clues;
    let mut steps = Steps {
        source: StepSource::WholeTrace,
        spans: Vec::new(),
        by_id: HashMap::new(),
        warmup: 0,
        markers_elsewhere: 0,
    };
    if let Some((start_s, end_s)) = mapping.given_step()? {
        steps.source = StepSource::Given { start_s, end_s };
        // In whole ns, so 41 ms typed is 41,000 µs, not one ulp past it.
        let at = |s: f64| origin + (s * 1e9).round() / 1e3;
        steps.spans = vec![(at(start_s), at(end_s))];
        return Ok(steps);
    }
    // Markers: those of the lane holding the earliest one (PyTorch writes
    // them on the GPU stream too).
    let marker_lane = markers
        .iter()
        .min_by(|a, b| a.start.total_cmp(&b.start).then(a.lane.cmp(&b.lane)))
        .map(|m| m.lane);
    let before = markers.len();
    markers.retain(|m| Some(m.lane) == marker_lane);
    steps.markers_elsewhere = before - markers.len();
    if !markers.is_empty() {
        crate::order::sort_by(&mut markers, |a, b| a.start.total_cmp(&b.start));
        steps.source = StepSource::Markers;
        steps.spans = markers.iter().map(|m| (m.start, m.end)).collect();
    } else if !ids.is_empty() {
        let mut spans: Vec<(&str, f64, f64)> = Vec::new();
        let mut at: HashMap<&str, usize> = HashMap::new();
        for (id, start, end) in ids {
            match at.get(id) {
                Some(&k) => {
                    let s = &mut spans[k];
                    s.1 = s.1.min(start);
                    s.2 = s.2.max(end);
                }
                None => {
                    at.insert(id, spans.len());
                    spans.push((id, start, end));
                }
            }
        }
        crate::order::sort_by(&mut spans, |a, b| a.1.total_cmp(&b.1).then(a.0.cmp(b.0)));
        steps.source = StepSource::Ids;
        steps.by_id = spans
            .iter()
            .enumerate()
            .map(|(k, s)| (s.0, k))
            .collect();
        steps.spans = spans.iter().map(|s| (s.1, s.2)).collect();
    } else if mapping.step_marker.is_empty() {
        steps.spans = vec![(f64::NEG_INFINITY, f64::INFINITY)];
        return Ok(steps);
    } else {
        return Err(TraceError::NoSteps {
            name: name.to_string(),
            marker: mapping.step_marker.clone(),
            span_s,
        });
    }
    if steps.spans.len() <= mapping.warmup_steps as usize {
        return Err(TraceError::AllWarmUp {
            name: name.to_string(),
            steps: steps.spans.len(),
            warmup: mapping.warmup_steps,
        });
    }
    steps.warmup = mapping.warmup_steps as usize;
    Ok(steps)
}
