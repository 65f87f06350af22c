//! One model's results, drawn from its `Report` with no knowledge of the
//! model: headline figures, notes, charts, tables, every figure. A report
//! whose inputs turned invalid stays on screen, dimmed and marked as the
//! last valid one; missing inputs clear it and say what is needed.

use std::sync::Arc;

use leptos::prelude::*;

use super::chart::Chart;
use super::fields::{LazyDetails, ShowMore};
use super::state::ModelSlot;
use crate::report::{fmt_count, plotly, Action, Report, Table, Unit};
use crate::worker::Counted;

/// Every registry model's results, in registry order.
#[component]
pub fn AllResults(
    /// Leave out models whose inputs the scenario does not give (the
    /// embed view shows only what the scenario is about).
    #[prop(optional)]
    hide_missing: bool,
) -> impl IntoView {
    let state = super::expect_state();
    let panels = state
        .slots()
        .into_iter()
        .map(|entry| {
            // In the embed, a model appears once its outcome says it
            // applies, so a card never flashes a panel it then removes.
            let shown = move || !hide_missing || entry.applies();
            view! { <Show when=shown><ModelResults entry=entry /></Show> }
        })
        .collect_view();
    view! { <RuntimeStatus /> {panels} }
}

/// What the worker is computing, with a way to stop it. Shown only when a
/// computation takes long enough to notice (CSS delay), so fast edits do
/// not flicker.
#[component]
pub fn RuntimeStatus() -> impl IntoView {
    let state = super::expect_state();
    let name = |id: &str| crate::worker::shown_by_id(id).map_or("…", |m| m.name());
    // The box stays while a request runs; only its text and bar follow the
    // progress, so the Cancel button is never rebuilt under the pointer.
    let running = Memo::new(move |_| state.progress.with(Option::is_some));
    let done = move || state.progress.with(|p| p.as_ref().map_or(0, |p| p.done));
    let total = move || state.progress.with(|p| p.as_ref().map_or(1, |p| p.total));
    let label = move || {
        state.progress.with(|p| {
            p.as_ref()
                .map(|p| {
                    format!(
                        "computing {} ({} of {})…",
                        name(&p.model),
                        p.done + 1,
                        p.total
                    )
                })
                .unwrap_or_default()
        })
    };
    view! {
        <Show when=move || running.get()>
            <div class="runtime-status" role="status" data-testid="runtime-status">
                <progress max=move || total().to_string() value=move || done().to_string()></progress>
                <span>{label}</span>
                <button type="button" class="small secondary" on:click=move |_| state.cancel() data-testid="cancel">"Cancel"</button>
            </div>
        </Show>
    }
}

/// One model's section.
#[component]
pub fn ModelResults(entry: ModelSlot) -> impl IntoView {
    let slot = entry;
    let id = slot.model.id();
    let stale = Memo::new(move |_| slot.stale_errors());
    let missing = Memo::new(move |_| {
        slot.needs()
            .map(|u| u.errors().to_vec())
            .unwrap_or_default()
    });
    let is_stale = move || !stale.with(Vec::is_empty);
    let state = super::expect_state();
    let pending = Memo::new(move |_| state.pending(&slot));
    let cancelled = move || pending.get() && state.cancelled.get() == Some(state.revision.get());
    // Charts stay mounted across edits, keyed by chart: plotly then
    // updates the same drawing instead of building a new one.
    let chart_keys = Memo::new(move |_| {
        slot.last_good.with(|r| {
            r.as_ref()
                .map(|r| r.charts.iter().map(|c| c.key.clone()).collect::<Vec<_>>())
                .unwrap_or_default()
        })
    });
    let table_keys = Memo::new(move |_| {
        slot.last_good.with(|r| {
            r.as_ref()
                .map(|r| r.tables.iter().map(|t| t.key.clone()).collect::<Vec<_>>())
                .unwrap_or_default()
        })
    });
    view! {
        <section
            class="panel model-results"
            class:stale-result=is_stale
            class:pending-result=move || pending.get()
            aria-busy=move || pending.get().to_string()
            aria-label=format!("{} results", slot.model.name())
            data-testid=format!("results-{id}")
        >
            <h2>{slot.model.name()} <span class="hint">" — " {slot.model.about()}</span></h2>
            <Show when=move || pending.get() && !cancelled()>
                <p class="pending-note" data-testid=format!("{id}-pending")>
                    {move || match slot.partial.get() {
                        Some((done, total, Counted::Parts)) => format!("computing… {done} of {total} parts done; the figures below are the part computed so far"),
                        Some((done, total, Counted::Samples)) => format!(
                            "computing the bands… {} of {} samples drawn; the bands below are of those so far",
                            fmt_count(f64::from(done)),
                            fmt_count(f64::from(total))
                        ),
                        None => "updating… the figures below are from the previous inputs".to_string(),
                    }}
                </p>
            </Show>
            <Show when=cancelled>
                <div class="stale" role="status" data-testid=format!("{id}-cancelled")>
                    <strong>"Computation cancelled."</strong>
                    " These results are from earlier inputs; edit any field to compute again."
                </div>
            </Show>
            <Show when=is_stale>
                <div class="stale" role="status" data-testid=format!("{id}-stale")>
                    <strong>"These results are from the last valid inputs."</strong>
                    " Fix the fields marked in red:"
                    <ul>
                        <For each=move || stale.get() key=|e| e.to_string() let:e>
                            <li>{e.message}</li>
                        </For>
                    </ul>
                </div>
            </Show>
            <Show when=move || !missing.with(Vec::is_empty)>
                <p class="hint" data-testid=format!("{id}-missing")>
                    {slot.model.name()} " needs: "
                    {move || missing.get().into_iter().map(|e| e.message).collect::<Vec<_>>().join("; ")}
                </p>
            </Show>
            <ReportBody id=id report=slot.last_good />
            <ReportActions id=id entry=slot />
            <ReportDownloads id=id entry=slot />
            <For each=move || chart_keys.get() key=|k| k.clone() let:chart>
                <ReportChart id=id entry=slot chart=chart />
            </For>
            <For each=move || table_keys.get() key=|k| k.clone() let:key>
                <ReportTable id=id entry=slot key=key />
            </For>
            <Show when=move || slot.last_good.with(Option::is_some)>
                <AllFigures id=id entry=slot />
            </Show>
        </section>
    }
}

/// A report's subject, headline figures and notes. Built once per shape
/// (which figures, their labels and kinds) and updated in place: an edit
/// that changes only numbers sets only the text that changed. (Rebuilt
/// whole, every element's attributes were removed and set again, which
/// restyled and laid out the whole panel on each keystroke.)
#[component]
pub fn ReportBody(
    id: &'static str,
    /// The report shown (nothing while `None`).
    #[prop(into)]
    report: Signal<Option<Arc<Report>>>,
    /// The overview's few figures (keys, in order; empty: the first
    /// four): notes and the rest stay in the model's own view.
    #[prop(optional)]
    compact: Option<&'static [&'static str]>,
) -> impl IntoView {
    let shown = Memo::new(move |_| report.with(Option::is_some));
    let subject = Memo::new(move |_| {
        report.with(|r| {
            r.as_ref()
                .map(|r| format!("{} · {}", r.model_name, r.subject))
                .unwrap_or_default()
        })
    });
    let shape = Memo::new(move |_| report.with(|r| r.as_ref().map(|r| figure_shapes(r, compact))));
    let headline = move || {
        shape.get().map(|figures| {
            figures
                .into_iter()
                .map(|shape| kpi(id, report, shape))
                .collect_view()
        })
    };
    let notes = Memo::new(move |_| {
        report.with(|r| {
            r.as_ref()
                .filter(|_| compact.is_none())
                .map(|r| {
                    // Keyed by place too: two notes may read the same.
                    r.notes
                        .iter()
                        .enumerate()
                        .map(|(i, n)| (i, format!("note {}", n.level.label()), n.text.clone()))
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default()
        })
    });
    view! {
        <Show when=move || shown.get()>
            <p class="hint subject" data-testid=format!("{id}-subject")>{move || subject.get()}</p>
            <div class="headline" data-testid=format!("{id}-headline")>{headline}</div>
            <ul class="notes" data-testid=format!("{id}-notes")>
                <For each=move || notes.get() key=|n| n.clone() let:note>
                    <li class=note.1>{note.2}</li>
                </For>
            </ul>
        </Show>
    }
}

/// What a headline figure's box is made of; its value is read apart.
#[derive(Clone, PartialEq)]
struct FigureShape {
    key: String,
    label: String,
    /// Short words (a regime) stay large; sentences span the row.
    words: bool,
    band: bool,
    published: bool,
    source: String,
}

/// The shapes of the figures `compact` chooses (all, without it).
fn figure_shapes(r: &Report, compact: Option<&'static [&'static str]>) -> Vec<FigureShape> {
    let chosen: Vec<&crate::report::Figure> = match compact {
        None => r.headline.iter().collect(),
        Some([]) => r.headline.iter().take(OVERVIEW_FIGURES).collect(),
        Some(keys) => keys
            .iter()
            .filter_map(|k| r.headline.iter().find(|f| f.key == *k))
            .collect(),
    };
    chosen
        .into_iter()
        .map(|f| FigureShape {
            key: f.key.clone(),
            label: f.label.clone(),
            words: matches!(&f.value, crate::report::Value::Text { text } if text.chars().count() > 24),
            band: f.band.is_some(),
            published: f.published.is_some(),
            source: f.source.clone(),
        })
        .collect()
}

/// A headline figure's value as shown: its text, its exact number (the
/// tooltip), its band and its value as published.
#[derive(Clone, Default, PartialEq)]
struct FigureText {
    value: String,
    exact: String,
    band: Option<String>,
    published: Option<String>,
}

/// One headline figure's box, its texts following `report`.
fn kpi(id: &'static str, report: Signal<Option<Arc<Report>>>, shape: FigureShape) -> impl IntoView {
    let key = shape.key.clone();
    let text = Memo::new(move |_| {
        report.with(|r| {
            r.as_ref()
                .and_then(|r| r.headline.iter().find(|f| f.key == key))
                .map(|f| FigureText {
                    value: f.value.display(),
                    exact: exact(&f.value),
                    band: f
                        .band
                        .as_ref()
                        .and_then(|b| crate::uncertainty::display(b, &f.value)),
                    published: f.published.as_ref().map(|p| p.display()),
                })
                .unwrap_or_default()
        })
    });
    let testid = format!("{id}-{}", shape.key);
    let class = if shape.words { "kpi words" } else { "kpi" };
    view! {
        <div class=class>
            <span class="kpi-label">{shape.label}</span>
            <span class="kpi-value" data-testid=testid.clone() title=move || text.with(|t| t.exact.clone())>
                {move || text.with(|t| t.value.clone())}
            </span>
            {shape.band.then(|| view! {
                <span class="kpi-band" data-testid=format!("{testid}-band")>
                    {move || text.with(|t| t.band.clone().unwrap_or_default())}
                </span>
            })}
            {shape.published.then(|| view! {
                <span class="kpi-published" data-testid=format!("{testid}-published")>
                    "as published: " {move || text.with(|t| t.published.clone().unwrap_or_default())}
                </span>
            })}
            {(!shape.source.is_empty()).then(|| view! { <span class="kpi-source">{shape.source}</span> })}
        </div>
    }
}

/// The files a report offers, as download buttons.
#[component]
fn ReportDownloads(id: &'static str, entry: ModelSlot) -> impl IntoView {
    let problem = RwSignal::new(None::<String>);
    let keys = Memo::new(move |_| {
        entry.last_good.with(|r| {
            r.as_ref()
                .map(|r| {
                    r.downloads
                        .iter()
                        .map(|d| (d.key.clone(), d.label.clone()))
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default()
        })
    });
    let save = move |key: String| {
        entry.last_good.with_untracked(|r| {
            if let Some(d) = r
                .as_ref()
                .and_then(|r| r.downloads.iter().find(|d| d.key == key))
            {
                if let Err(e) = super::files::download_text(&d.filename, &d.mime, &d.text) {
                    problem.set(Some(e.to_string()));
                }
            }
        })
    };
    view! {
        <Show when=move || !keys.with(Vec::is_empty)>
            <div class="row downloads">
                <For each=move || keys.get() key=|(k, _)| k.clone() let:file>
                    {
                        let (key, label) = file;
                        let testid = format!("{id}-download-{key}");
                        view! {
                            <button type="button" class="secondary" data-testid=testid
                                on:click=move |_| save(key.clone())>{label}</button>
                        }
                    }
                </For>
            </div>
        </Show>
        {move || problem.get().map(|m| view! { <p class="field-error" role="alert">{m}</p> })}
    }
}

/// The report's actions as buttons, enabled only while the report is for
/// the newest inputs (an older plan answers other goals).
#[component]
fn ReportActions(id: &'static str, entry: ModelSlot) -> impl IntoView {
    let state = super::expect_state();
    let status = RwSignal::new(None::<Result<String, String>>);
    let actions = Memo::new(move |_| {
        entry
            .last_good
            .with(|r| r.as_ref().map(|r| r.actions.clone()).unwrap_or_default())
    });
    let current =
        Memo::new(move |_| !state.pending(&entry) && matches!(entry.outcome.get(), Some(Ok(_))));
    let run = move |a: Action| {
        let next = state
            .scenario
            .with_untracked(|s| crate::scenario::patch::apply(s, &a.patch));
        match next {
            Ok(n) => {
                state.scenario.set(n);
                status.set(Some(Ok(format!("Done: {}", a.description))));
            }
            Err(e) => status.set(Some(Err(e.to_string()))),
        }
    };
    view! {
        <Show when=move || !actions.with(Vec::is_empty)>
            <div class="row actions" data-testid=format!("{id}-actions")>
                <For each=move || actions.get() key=|a| a.key.clone() let:a>
                    {
                        let title = a.description.clone();
                        let testid = format!("{id}-action-{}", a.key);
                        let label = a.label.clone();
                        view! {
                            <button type="button" class="secondary" data-testid=testid
                                disabled=move || !current.get()
                                title=move || if current.get() { title.clone() } else { "These results are not for the newest inputs yet".to_string() }
                                on:click=move |_| run(a.clone())>{label}</button>
                        }
                    }
                </For>
            </div>
        </Show>
        {move || status.get().map(|m| match m {
            Ok(m) => view! { <p class="ok" role="status" data-testid=format!("{id}-action-note")>{m}</p> }.into_any(),
            Err(m) => view! { <p class="field-error" role="alert" data-testid=format!("{id}-action-error")>{m}</p> }.into_any(),
        })}
    }
}

/// One chart of the model's newest good report.
#[component]
fn ReportChart(id: &'static str, entry: ModelSlot, chart: String) -> impl IntoView {
    let testid = format!("{id}-chart-{chart}");
    let filename = format!("ddnn-{id}-{chart}");
    let figure = {
        let chart = chart.clone();
        Signal::derive(move || slot_figure(entry, &chart, None))
    };
    let table_id = format!("{testid}-table");
    view! {
        <Chart figure=figure testid=testid filename=filename />
        <ChartTable entry=entry key=chart testid=table_id />
    }
}

/// The plotly figure of chart `key` in the slot's newest good report,
/// drawn `height` px high if given (else the chart's own height).
pub fn slot_figure(slot: ModelSlot, key: &str, height: Option<u32>) -> Option<serde_json::Value> {
    slot.last_good.with(|r| {
        let mut f = plotly::figure(r.as_ref()?.chart(key)?);
        if let Some(h) = height {
            f["layout"]["height"] = h.into();
        }
        Some(f)
    })
}

/// Headline figures per model in the overview (the model's tab has all).
const OVERVIEW_FIGURES: usize = 4;

/// Rows of a report table on the page at first (the exports have all).
const TABLE_ROWS: usize = 50;

/// One table of the model's newest good report, by key.
#[component]
fn ReportTable(id: &'static str, entry: ModelSlot, key: String) -> impl IntoView {
    let testid = format!("{id}-table-{key}");
    let table = Memo::new(move |_| {
        entry
            .last_good
            .with(|r| r.as_ref().and_then(|r| r.table(&key).cloned()))
    });
    let open = table.with_untracked(|t| t.as_ref().is_some_and(|t| t.rows.len() <= 12));
    let summary = Signal::derive(move || {
        table.with(|t| t.as_ref().map(|t| t.title.clone()).unwrap_or_default())
    });
    view! { <TableBlock table=table open=open summary=summary testid=testid class="report-table" /> }
}

/// A chart's data as a table under the chart: its equivalent for a screen
/// reader, a printout or whoever wants the numbers. Closed at first, and
/// built only once opened (a timeline can have thousands of bars).
#[component]
pub fn ChartTable(entry: ModelSlot, key: String, testid: String) -> impl IntoView {
    let summary = {
        let key = key.clone();
        Signal::derive(move || {
            entry.last_good.with(|r| {
                r.as_ref()
                    .and_then(|r| r.chart(&key))
                    .map(|c| format!("{} — as a table", c.title))
                    .unwrap_or_default()
            })
        })
    };
    let table = Memo::new(move |_| {
        entry
            .last_good
            .with(|r| r.as_ref().and_then(|r| r.chart(&key)).map(|c| c.as_table()))
    });
    view! { <TableBlock table=table open=false summary=summary testid=testid class="report-table chart-table" /> }
}

/// A table in a details block: its first rows, "show more", its caption.
#[component]
fn TableBlock(
    table: Memo<Option<Table>>,
    open: bool,
    summary: Signal<String>,
    testid: String,
    class: &'static str,
) -> impl IntoView {
    let limit = RwSignal::new(TABLE_ROWS);
    let total = Signal::derive(move || table.with(|t| t.as_ref().map_or(0, |t| t.rows.len())));
    // A memo: the caption's paragraph is rebuilt only when its text changes.
    let caption = Memo::new(move |_| {
        table.with(|t| {
            t.as_ref()
                .map(|t| t.caption.clone())
                .filter(|c| !c.is_empty())
        })
    });
    view! {
        <LazyDetails open=open class=class summary=summary>
            // Focusable, so a keyboard can scroll a table wider than its box.
            <div class="scroll" tabindex="0" role="region" aria-label=move || summary.get()>
                <table class="figures" data-testid=testid.clone()>
                    {table_body(table, limit)}
                </table>
            </div>
            <ShowMore total=total limit=limit what="rows" />
            {move || caption.get().map(|c| view! { <p class="hint">{c}</p> })}
        </LazyDetails>
    }
}

/// The head and the first `limit` rows of a table, built once per shape
/// (columns and row count); each row's cells follow their values, so an
/// edit that changes numbers sets only the text and tooltips that changed
/// (rebuilt whole, every cell's attributes were set again and the table
/// restyled on each keystroke).
fn table_body(table: Memo<Option<Table>>, limit: RwSignal<usize>) -> impl IntoView {
    let shape = Memo::new(move |_| {
        table.with(|t| {
            t.as_ref().map(|t| {
                let columns: Vec<(String, Unit)> =
                    t.columns.iter().map(|c| (c.header(), c.unit)).collect();
                (columns, t.rows.len().min(limit.get()))
            })
        })
    });
    move || {
        shape.get().map(|(columns, rows)| {
            let units: Arc<[Unit]> = columns.iter().map(|(_, u)| *u).collect();
            let head = columns
                .into_iter()
                .map(|(header, unit)| view! { <th class=num_class(unit)>{header}</th> })
                .collect_view();
            let rows = (0..rows)
                .map(|i| table_row(table, i, Arc::clone(&units)))
                .collect_view();
            view! {
                <thead><tr>{head}</tr></thead>
                <tbody>{rows}</tbody>
            }
        })
    }
}

/// A value's every digit, for its tooltip (empty for words).
fn exact(v: &crate::report::Value) -> String {
    v.number().map(|x| format!("{x}")).unwrap_or_default()
}

/// A cell's class: numbers align right.
fn num_class(unit: Unit) -> &'static str {
    if unit == Unit::None {
        ""
    } else {
        "num"
    }
}

/// Row `i` of `table`: each cell's text and exact number (its tooltip),
/// read once per change of the table.
fn table_row(table: Memo<Option<Table>>, i: usize, units: Arc<[Unit]>) -> impl IntoView {
    let cells = {
        let units = Arc::clone(&units);
        Memo::new(move |_| {
            table.with(|t| {
                t.as_ref()
                    .and_then(|t| t.rows.get(i))
                    .map(|row| {
                        row.iter()
                            .enumerate()
                            .map(|(j, v)| {
                                let unit = units.get(j).copied().unwrap_or_default();
                                (exact(v), v.display_in(unit))
                            })
                            .collect::<Vec<_>>()
                    })
                    .unwrap_or_default()
            })
        })
    };
    let cell = move |j: usize, f: fn(&(String, String)) -> &String| {
        move || cells.with(|c| c.get(j).map(|c| f(c).clone()).unwrap_or_default())
    };
    let tds = units
        .iter()
        .enumerate()
        .map(|(j, unit)| {
            view! { <td class=num_class(*unit) title=cell(j, |c| &c.0)>{cell(j, |c| &c.1)}</td> }
        })
        .collect_view();
    view! { <tr>{tds}</tr> }
}

/// Every figure of the model's newest good report.
#[component]
fn AllFigures(id: &'static str, entry: ModelSlot) -> impl IntoView {
    let limit = RwSignal::new(TABLE_ROWS);
    let total = Signal::derive(move || {
        entry
            .last_good
            .with(|r| r.as_ref().map_or(0, |r| r.figures.len()))
    });
    let rows = move || {
        entry.last_good.with(|r| {
            r.as_ref().map(|r| {
                r.figures
                    .iter()
                    .take(limit.get())
                    .map(|f| {
                        view! {
                            <tr>
                                <td>{f.label.clone()}</td>
                                <td class="num" title=exact(&f.value)>{f.value.display()}</td>
                                <td>{f.source.clone()}</td>
                            </tr>
                        }
                    })
                    .collect_view()
            })
        })
    };
    view! {
        <LazyDetails open=false class="" summary="All figures">
            <table class="figures" data-testid=format!("{id}-figures")>
                <thead><tr><th>"quantity"</th><th class="num">"value"</th><th>"source"</th></tr></thead>
                <tbody>{rows}</tbody>
            </table>
            <ShowMore total=total limit=limit what="figures" />
        </LazyDetails>
    }
}
