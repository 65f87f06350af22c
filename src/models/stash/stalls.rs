//! Stash's stall arithmetic (Sec. IV-B; `shared/models.md` §4): the
//! measured runs grouped per configuration, normalised to the same samples
//! per GPU, and the four stalls with the reference each percentage uses.
//! A run that contradicts the method is reported, naming it, never turned
//! into a negative stall; only the network stall may be negative.

use serde::{Serialize, Serializer};

use super::section::{parse_configuration, Run, ID};
use crate::hardware::Instance;
use crate::report::fmt_sig;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum StallKind {
    Interconnect,
    Network,
    Cpu,
    Disk,
}

impl StallKind {
    pub const ALL: [StallKind; 4] = [
        StallKind::Interconnect,
        StallKind::Network,
        StallKind::Cpu,
        StallKind::Disk,
    ];

    pub fn word(self) -> &'static str {
        match self {
            StallKind::Interconnect => "interconnect",
            StallKind::Network => "network",
            StallKind::Cpu => "CPU prep",
            StallKind::Disk => "disk fetch",
        }
    }

    pub fn key(self) -> &'static str {
        match self {
            StallKind::Interconnect => "interconnect",
            StallKind::Network => "network",
            StallKind::Cpu => "cpu",
            StallKind::Disk => "disk",
        }
    }

    /// The definition, shown next to every number.
    pub fn definition(self) -> &'static str {
        match self {
            StallKind::Interconnect => "t2 − t1, % of t1 (all GPUs of one machine vs one GPU, synthetic data)",
            StallKind::Network => "t5 − t2_ref, % of t2_ref (several machines vs one machine with as many GPUs, synthetic; may be negative)",
            StallKind::Cpu => "t4 − t_sync, % of t4 (real data in memory vs synthetic; t_sync is run (2), or run (5) on several machines)",
            StallKind::Disk => "t3 − t4, % of t3 (cold cache vs warm cache, real data)",
        }
    }
}

/// One stall: its seconds over the configuration's samples per GPU, and
/// its share of the reference its definition names.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct StallValue {
    pub seconds: f64,
    /// `seconds / reference_s` (0.5 = 50%).
    pub fraction: f64,
    pub reference_s: f64,
}

impl StallValue {
    fn of(later: f64, earlier: f64, reference: f64) -> Self {
        let seconds = later - earlier;
        StallValue {
            seconds,
            fraction: seconds / reference,
            reference_s: reference,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Stall {
    pub kind: StallKind,
    /// The stall, or why there is none (a missing or contradicting run).
    pub value: Result<StallValue, NoStall>,
}

/// Why a configuration has no value for a stall.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum NoStall {
    #[error("several machines: the interconnect stall is their one-machine member's")]
    SeveralMachines,
    #[error("one machine: no network between GPUs")]
    OneMachine,
    #[error(
        "missing run {}: the {} stall needs runs {}",
        runs(.absent),
        .kind.word(),
        runs(.needed)
    )]
    MissingRuns {
        kind: StallKind,
        absent: Vec<u8>,
        needed: Vec<u8>,
    },
    #[error("missing run (2) of one machine with {gpus} GPUs (its t2_ref, e.g. p3.16xlarge for 2× p3.8xlarge): add it, or name it in run (5)'s reference column")]
    NoReference { gpus: u32 },
    #[error(
        "contradiction: run (2) takes {} s, less than run (1)'s {} s over the same samples per GPU; all GPUs together cannot beat one GPU alone, which has no communication (check the runs' samples)",
        fmt_sig(*.t2),
        fmt_sig(*.t1)
    )]
    AllBeatOne { t1: f64, t2: f64 },
    #[error(
        "contradiction: run (4) on real data takes {} s, less than the synthetic run ({sync})'s {} s; data already in GPU memory cannot be slower",
        fmt_sig(*.t4),
        fmt_sig(*.t_sync)
    )]
    RealBeatsSynthetic { sync: u8, t_sync: f64, t4: f64 },
    #[error(
        "contradiction: run (3) with a cold cache takes {} s, less than run (4)'s {} s with a warm one; was run (3) run after run (4), or the cache not cleared?",
        fmt_sig(*.t3),
        fmt_sig(*.t4)
    )]
    ColdBeatsWarm { t3: f64, t4: f64 },
}

impl NoStall {
    /// A run is missing or contradicts the method: the runs' fault, worth
    /// a warning (the others are stalls the configuration cannot have).
    pub fn is_in_runs(&self) -> bool {
        !matches!(self, NoStall::SeveralMachines | NoStall::OneMachine)
    }
}

/// As its sentence, so the evaluation's JSON is what it was with strings.
impl Serialize for NoStall {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// "(1) and (2)".
fn runs(list: &[u8]) -> String {
    let named: Vec<String> = list.iter().map(|r| format!("({r})")).collect();
    named.join(" and ")
}

/// A configuration's runs and stalls.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ConfigStalls {
    /// "p3.16xlarge", "2× p3.8xlarge".
    pub name: String,
    pub instance: String,
    pub machines: u32,
    /// GPUs of the whole configuration.
    pub gpus: u32,
    /// Samples per GPU every time below is normalised to.
    pub per_gpu_samples: f64,
    /// `t1 … t5` [s], normalised, repeats averaged.
    pub times: [Option<f64>; 5],
    /// Several machines: the one-machine configuration whose run (2) is
    /// `t2_ref`, and that time normalised to these samples per GPU.
    pub reference: Option<(String, f64)>,
    pub stalls: Vec<Stall>,
}

impl ConfigStalls {
    pub fn time(&self, run: u8) -> Option<f64> {
        self.times
            .get(usize::from(run).wrapping_sub(1))
            .copied()
            .flatten()
    }

    /// The synthetic run over every GPU: (2) on one machine, (5) on several.
    pub fn synthetic_all(&self) -> Option<f64> {
        self.time(if self.machines > 1 { 5 } else { 2 })
    }

    pub fn stall(&self, kind: StallKind) -> Option<&StallValue> {
        self.stalls
            .iter()
            .find(|s| s.kind == kind)
            .and_then(|s| s.value.as_ref().ok())
    }
}

/// A remark about the runs, at the row it concerns.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunNote {
    pub field: String,
    pub text: String,
    pub warning: bool,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct StallAnalysis {
    pub configs: Vec<ConfigStalls>,
    pub notes: Vec<RunNote>,
}

/// "2× p3.8xlarge", or the bare name for one machine.
pub fn configuration_name(instance: &str, machines: u32) -> String {
    if machines == 1 {
        instance.to_string()
    } else {
        format!("{machines}× {instance}")
    }
}

/// A run row as read: which configuration, which step, its time and
/// samples per GPU.
struct Row {
    index: usize,
    config: usize,
    run: u8,
    seconds: f64,
    per_gpu: f64,
}

struct Group {
    instance: String,
    machines: u32,
    gpus_per_machine: u32,
    gpu_model: Option<String>,
    reference: Option<String>,
}

fn at(i: usize) -> String {
    format!("models.{ID}.runs[{i}]")
}

/// Groups, normalises and evaluates the runs. Rows the section's own
/// validation refuses are skipped here (their message is at the field).
pub fn analyse(runs: &[Run], catalog: &[Instance]) -> StallAnalysis {
    let mut notes = Vec::new();
    let mut groups: Vec<Group> = Vec::new();
    let mut rows: Vec<Row> = Vec::new();
    for (i, r) in runs.iter().enumerate() {
        let Ok((instance, machines)) = parse_configuration(&r.configuration) else {
            continue;
        };
        if !((1..=5).contains(&r.run) && r.seconds > 0.0 && r.samples > 0.0) {
            continue;
        }
        let row = i + 1;
        let Some(inst) = catalog.iter().find(|c| c.name == instance) else {
            notes.push(RunNote {
                field: at(i),
                text: format!(
                    "run row {row}: {instance} is not in the catalog; add it with its GPUs per instance (the runs are compared per GPU)"
                ),
                warning: true,
            });
            continue;
        };
        let Some(gpus) = inst.gpus.filter(|&g| g > 0) else {
            notes.push(RunNote {
                field: at(i),
                text: format!("run row {row}: {instance} has no GPUs in the catalog; give its GPUs per instance"),
                warning: true,
            });
            continue;
        };
        let name = configuration_name(&instance, machines);
        if machines == 1 && r.run == 5 {
            notes.push(RunNote {
                field: at(i),
                text: format!(
                    "run row {row}: run (5) of {name} is left out: run (5) is the run on several machines (e.g. 2× {instance}); one machine's synthetic run over all its GPUs is run (2)"
                ),
                warning: true,
            });
            continue;
        }
        if machines > 1 && r.run == 2 {
            notes.push(RunNote {
                field: at(i),
                text: format!(
                    "run row {row}: run (2) of {name} is left out: on several machines the synthetic run over every GPU is run (5); run (2) belongs to one machine with {} GPUs, its reference",
                    machines * gpus
                ),
                warning: true,
            });
            continue;
        }
        let config = match groups
            .iter()
            .position(|g| g.instance == instance && g.machines == machines)
        {
            Some(g) => g,
            None => {
                groups.push(Group {
                    instance: instance.clone(),
                    machines,
                    gpus_per_machine: gpus,
                    gpu_model: inst.gpu_model.clone(),
                    reference: None,
                });
                groups.len() - 1
            }
        };
        if let Some(reference) = &r.reference {
            groups[config].reference = Some(reference.clone());
        }
        let gpus_used = if r.run == 1 { 1 } else { machines * gpus };
        rows.push(Row {
            index: i,
            config,
            run: r.run,
            seconds: r.seconds,
            per_gpu: r.samples / f64::from(gpus_used),
        });
    }

    let mut configs: Vec<ConfigStalls> = groups
        .iter()
        .enumerate()
        .map(|(g, group)| times_of(g, group, &rows, &mut notes))
        .collect();
    for c in 0..configs.len() {
        let reference = reference_of(c, &configs, &groups, &mut notes);
        let config = &mut configs[c];
        config.reference = reference;
        config.stalls = StallKind::ALL
            .iter()
            .map(|&kind| Stall {
                kind,
                value: stall(kind, config),
            })
            .collect();
        for s in &config.stalls {
            if let Err(why) = &s.value {
                if why.is_in_runs() {
                    notes.push(RunNote {
                        field: format!("models.{ID}.runs"),
                        text: format!("{}, {} stall: {why}", config.name, s.kind.word()),
                        warning: true,
                    });
                }
            }
        }
        if let Some(v) = config.stall(StallKind::Network) {
            if v.seconds < 0.0 {
                notes.push(RunNote {
                    field: format!("models.{ID}.runs"),
                    text: format!(
                        "{}: the network stall is negative ({} s): the machines together ran faster than one machine with as many GPUs, as the paper reports for 2× p2.8xlarge against p2.16xlarge, whose 16 GPUs share its PCIe",
                        config.name,
                        fmt_sig(v.seconds)
                    ),
                    warning: false,
                });
            }
        }
    }
    StallAnalysis { configs, notes }
}

/// The group's times normalised to the samples per GPU of its synthetic
/// all-GPU run (else its first run), repeats averaged.
fn times_of(g: usize, group: &Group, rows: &[Row], notes: &mut Vec<RunNote>) -> ConfigStalls {
    let name = configuration_name(&group.instance, group.machines);
    let mine: Vec<&Row> = rows.iter().filter(|r| r.config == g).collect();
    let sync = if group.machines > 1 { 5 } else { 2 };
    let per_gpu = mine
        .iter()
        .find(|r| r.run == sync)
        .or(mine.first())
        .map_or(1.0, |r| r.per_gpu);
    let mut times = [None; 5];
    for run in 1..=5u8 {
        let these: Vec<&&Row> = mine.iter().filter(|r| r.run == run).collect();
        if these.is_empty() {
            continue;
        }
        let mut sum = 0.0;
        for r in &these {
            let scaled = r.seconds * per_gpu / r.per_gpu;
            if (r.per_gpu - per_gpu).abs() > 1e-9 * per_gpu {
                notes.push(RunNote {
                    field: at(r.index),
                    text: format!(
                        "run row {}: run ({run}) of {name} covered {} samples per GPU, the others {}: its {} s is scaled to {} s (time taken as proportional to samples)",
                        r.index + 1,
                        fmt_sig(r.per_gpu),
                        fmt_sig(per_gpu),
                        fmt_sig(r.seconds),
                        fmt_sig(scaled)
                    ),
                    warning: false,
                });
            }
            sum += scaled;
        }
        if these.len() > 1 {
            notes.push(RunNote {
                field: format!("models.{ID}.runs"),
                text: format!(
                    "{name}: {} measurements of run ({run}) averaged",
                    these.len()
                ),
                warning: false,
            });
        }
        times[usize::from(run) - 1] = Some(sum / these.len() as f64);
    }
    ConfigStalls {
        name,
        instance: group.instance.clone(),
        machines: group.machines,
        gpus: group.machines * group.gpus_per_machine,
        per_gpu_samples: per_gpu,
        times,
        reference: None,
        stalls: Vec::new(),
    }
}

/// `t2_ref` of a several-machine configuration: run (2) of the named
/// reference, or of the measured one-machine configuration with as many
/// GPUs (of the same GPU model when the catalog names both), normalised to
/// this configuration's samples per GPU.
fn reference_of(
    c: usize,
    configs: &[ConfigStalls],
    groups: &[Group],
    notes: &mut Vec<RunNote>,
) -> Option<(String, f64)> {
    let me = &configs[c];
    let group = &groups[c];
    if me.machines == 1 || me.time(5).is_none() {
        return None;
    }
    let candidate = |o: &ConfigStalls| o.machines == 1 && o.gpus == me.gpus && o.time(2).is_some();
    let found = match &group.reference {
        Some(name) => {
            let named = configs.iter().find(|o| &o.name == name);
            match named {
                Some(o) if candidate(o) => Some(o),
                Some(o) => {
                    notes.push(RunNote {
                        field: format!("models.{ID}.runs"),
                        text: format!(
                            "{}: its reference {name} cannot be t2_ref: it needs run (2) on one machine with {} GPUs (it has {} machine(s), {} GPUs{})",
                            me.name,
                            me.gpus,
                            o.machines,
                            o.gpus,
                            if o.time(2).is_none() { ", no run (2)" } else { "" }
                        ),
                        warning: true,
                    });
                    None
                }
                None => {
                    notes.push(RunNote {
                        field: format!("models.{ID}.runs"),
                        text: format!("{}: its reference {name} has no measured runs", me.name),
                        warning: true,
                    });
                    None
                }
            }
        }
        None => configs
            .iter()
            .zip(groups)
            .find(|(o, og)| {
                candidate(o)
                    && match (&group.gpu_model, &og.gpu_model) {
                        (Some(a), Some(b)) => a == b,
                        _ => true,
                    }
            })
            .map(|(o, _)| o),
    }?;
    let t2 = found.time(2)?;
    Some((
        found.name.clone(),
        t2 * me.per_gpu_samples / found.per_gpu_samples,
    ))
}

fn missing(config: &ConfigStalls, needed: &[u8], kind: StallKind) -> Option<NoStall> {
    let absent: Vec<u8> = needed
        .iter()
        .copied()
        .filter(|&r| config.time(r).is_none())
        .collect();
    (!absent.is_empty()).then(|| NoStall::MissingRuns {
        kind,
        absent,
        needed: needed.to_vec(),
    })
}

fn stall(kind: StallKind, c: &ConfigStalls) -> Result<StallValue, NoStall> {
    let get = |r: u8| c.time(r).unwrap_or(f64::NAN);
    match kind {
        StallKind::Interconnect => {
            if c.machines > 1 {
                return Err(NoStall::SeveralMachines);
            }
            if let Some(m) = missing(c, &[1, 2], kind) {
                return Err(m);
            }
            let (t1, t2) = (get(1), get(2));
            if t2 < t1 {
                return Err(NoStall::AllBeatOne { t1, t2 });
            }
            Ok(StallValue::of(t2, t1, t1))
        }
        StallKind::Network => {
            if c.machines == 1 {
                return Err(NoStall::OneMachine);
            }
            if let Some(m) = missing(c, &[5], kind) {
                return Err(m);
            }
            match &c.reference {
                Some((_, t2_ref)) => Ok(StallValue::of(get(5), *t2_ref, *t2_ref)),
                None => Err(NoStall::NoReference { gpus: c.gpus }),
            }
        }
        StallKind::Cpu => {
            let sync = if c.machines > 1 { 5 } else { 2 };
            if let Some(m) = missing(c, &[sync, 4], kind) {
                return Err(m);
            }
            let (t_sync, t4) = (get(sync), get(4));
            if t4 < t_sync {
                return Err(NoStall::RealBeatsSynthetic { sync, t_sync, t4 });
            }
            Ok(StallValue::of(t4, t_sync, t4))
        }
        StallKind::Disk => {
            if let Some(m) = missing(c, &[3, 4], kind) {
                return Err(m);
            }
            let (t3, t4) = (get(3), get(4));
            if t3 < t4 {
                return Err(NoStall::ColdBeatsWarm { t3, t4 });
            }
            Ok(StallValue::of(t3, t4, t3))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_stall_reads_and_serialises_as_its_sentence() {
        let missing = NoStall::MissingRuns {
            kind: StallKind::Interconnect,
            absent: vec![1, 2],
            needed: vec![1, 2],
        };
        assert_eq!(
            missing.to_string(),
            "missing run (1) and (2): the interconnect stall needs runs (1) and (2)"
        );
        let cold = NoStall::ColdBeatsWarm { t3: 1.0, t4: 2.0 };
        assert!(cold.to_string().starts_with("contradiction: run (3) with a cold cache takes "));
        assert!(cold.is_in_runs() && !NoStall::OneMachine.is_in_runs());
        assert_eq!(
            serde_json::to_value(&cold).ok(),
            Some(serde_json::Value::String(cold.to_string()))
        );
    }
}
