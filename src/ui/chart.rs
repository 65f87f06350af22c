//! One chart component for every figure: draws with `Plotly.react` when its
//! figure changes, offers SVG/PNG export, and shows plotly's failures as
//! text instead of panicking. The title is the figure's caption, in HTML:
//! it wraps on a narrow screen, where plotly would cut it at both edges.
//!
//! A chart redraws only while it is on screen (or about to be): each
//! `Plotly.react` costs ~25 ms, and an edit must not pay for charts the user
//! cannot see. Scrolling a chart into view draws its newest figure.

use leptos::html;
use leptos::prelude::*;
use leptos::task::spawn_local;
use serde_json::Value;

use super::plotly_js;
use crate::report::plotly::unescape;

#[component]
pub fn Chart(
    /// The figure (`data` + `layout`), rebuilt from the results.
    #[prop(into)]
    figure: Signal<Option<Value>>,
    /// `data-testid` of the drawing area.
    #[prop(into)]
    testid: String,
    /// File name stem for exports.
    #[prop(into)]
    filename: String,
) -> impl IntoView {
    let node = NodeRef::<html::Div>::new();
    // The drawing's height, known before plotly draws: with it the chart
    // box is sized by CSS alone (`contain: strict`), so drawing one chart
    // never lays out the rest of the page again.
    let height = move || {
        figure.with(|f| {
            f.as_ref()
                .and_then(|f| f["layout"]["height"].as_f64())
                .map_or_else(
                    || format!("{}px", plotly_js::DEFAULT_HEIGHT),
                    |h| format!("{h}px"),
                )
        })
    };
    let title = move || {
        figure.with(|f| {
            f.as_ref()
                .and_then(|f| f["layout"]["title"]["text"].as_str())
                .map(unescape)
        })
    };
    let error = RwSignal::new(None::<String>);
    let visible = RwSignal::new(false);
    let drawn = StoredValue::new(None::<Value>);
    Effect::new(move |_| {
        if let Some(el) = node.get() {
            observe_visibility(&el, visible);
        }
    });
    // One drawing per browser task (see `draw_queue`); the job reads the
    // newest figure when its turn comes, so queued edits coalesce.
    let queued = StoredValue::new(false);
    let draw = move || {
        let _ = queued.try_set_value(false);
        let (Some(Some(el)), Some(Some(fig)), Some(true)) = (
            node.try_get_untracked(),
            figure.try_get_untracked(),
            visible.try_get_untracked(),
        ) else {
            return;
        };
        if drawn
            .try_with_value(|d| d.as_ref() == Some(&fig))
            .unwrap_or(true)
        {
            return;
        }
        drawn.set_value(Some(fig.clone()));
        spawn_local(async move {
            let el: &web_sys::HtmlElement = &el;
            let _ = error.try_set(plotly_js::react(el, &fig).await.err());
        });
    };
    Effect::new(move |_| {
        figure.track();
        let (Some(_), true) = (node.get(), visible.get()) else {
            return;
        };
        if !queued.get_value() {
            queued.set_value(true);
            draw_queue::push(Box::new(draw));
        }
    });
    // Printing (or a full-page capture through print) needs every chart,
    // not only those near the viewport: draw this one now, in the event.
    let printing = window_event_listener(leptos::ev::beforeprint, move |_| {
        let _ = visible.try_update_untracked(|v| *v = true);
        draw();
    });
    on_cleanup(move || printing.remove());
    on_cleanup(move || {
        if let Some(el) = node.get_untracked() {
            plotly_js::purge(&el);
        }
    });
    let filename = StoredValue::new(filename);
    let export = move |format: &'static str| {
        move |_| {
            // Named after the scenario and the chart, e.g.
            // `vgg-16-2-quadro-rtx-4000-ddnn-zeng-timeline.png`.
            let scenario = super::expect_state()
                .scenario
                .with_untracked(|s| super::files::file_stem(&s.display_title()));
            let filename = format!("{scenario}-{}", filename.get_value());
            let Some(fig) = figure.get_untracked() else {
                return;
            };
            spawn_local(async move {
                if let Err(e) = plotly_js::download(&fig, format, &filename).await {
                    error.set(Some(e));
                }
            });
        }
    };
    let svg_testid = format!("{testid}-svg");
    let png_testid = format!("{testid}-png");
    let title_testid = format!("{testid}-title");
    view! {
        <figure class="chart-wrap">
            <figcaption class="chart-title" data-testid=title_testid>{title}</figcaption>
            <div class="chart" node_ref=node data-testid=testid style:height=height></div>
            <div class="chart-actions">
                <button type="button" class="small" on:click=export("svg") data-testid=svg_testid>"SVG"</button>
                <button type="button" class="small" on:click=export("png") data-testid=png_testid>"PNG"</button>
                {move || error.get().map(|e| view! { <span class="field-error">"chart: " {e}</span> })}
            </div>
        </figure>
    }
}

/// Keeps `visible` true while `el` is within 300 px of the viewport.
fn observe_visibility(el: &web_sys::HtmlElement, visible: RwSignal<bool>) {
    use wasm_bindgen::closure::Closure;
    use wasm_bindgen::JsCast;
    let on_change = Closure::<dyn FnMut(js_sys::Array)>::new(move |entries: js_sys::Array| {
        for entry in entries.iter() {
            if let Ok(entry) = entry.dyn_into::<web_sys::IntersectionObserverEntry>() {
                visible.set(entry.is_intersecting());
            }
        }
    });
    let opts = web_sys::IntersectionObserverInit::new();
    opts.set_root_margin("300px");
    match web_sys::IntersectionObserver::new_with_options(on_change.as_ref().unchecked_ref(), &opts)
    {
        Ok(observer) => {
            observer.observe(el);
            // The observer and its callback live as long as the chart.
            on_change.forget();
            on_cleanup(move || observer.disconnect());
        }
        // No IntersectionObserver: draw always.
        Err(_) => visible.set(true),
    }
}

/// Chart drawings wait here and run one per browser task: plotly draws
/// synchronously (25-40 ms a chart), so drawing every chart of a new report
/// in one task would hold the page for their sum.
mod draw_queue {
    use std::cell::{Cell, RefCell};
    use std::collections::VecDeque;

    use wasm_bindgen::closure::Closure;
    use wasm_bindgen::JsCast;

    type Job = Box<dyn FnOnce()>;

    thread_local! {
        static JOBS: RefCell<VecDeque<Job>> = RefCell::new(VecDeque::new());
        static SCHEDULED: Cell<bool> = const { Cell::new(false) };
    }

    pub fn push(job: Job) {
        JOBS.with(|q| q.borrow_mut().push_back(job));
        schedule();
    }

    /// Runs the next job in a task of its own after the next frame, so
    /// the browser lays out and paints what changed (new numbers, a new
    /// report) in its own frame, not inside plotly's measurements.
    fn schedule() {
        if SCHEDULED.with(|s| s.replace(true)) {
            return;
        }
        let Some(w) = web_sys::window() else {
            SCHEDULED.with(|s| s.set(false));
            return;
        };
        let run = Closure::once_into_js(run_one);
        let after_frame = Closure::once_into_js(move || {
            if let Some(w) = web_sys::window() {
                let _ = w.set_timeout_with_callback(run.unchecked_ref());
            }
        });
        if w.request_animation_frame(after_frame.unchecked_ref())
            .is_err()
        {
            SCHEDULED.with(|s| s.set(false));
        }
    }

    fn run_one() {
        SCHEDULED.with(|s| s.set(false));
        let job = JOBS.with(|q| q.borrow_mut().pop_front());
        if let Some(job) = job {
            job();
        }
        if JOBS.with(|q| !q.borrow().is_empty()) {
            schedule();
        }
    }
}
