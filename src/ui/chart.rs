//! One chart component for every figure: draws with `Plotly.react` when its
//! figure changes, offers SVG/PNG export, and shows plotly's failures as
//! text instead of panicking. The title is the figure's caption, in HTML:
//! it wraps on a narrow screen, where plotly would cut it at both edges.
//!
//! A chart redraws only while it is on screen (or about to be): each
//! `Plotly.react` costs a long task on a slow machine, and an edit must
//! not pay for charts the user cannot see. Scrolling a chart into view
//! draws its newest figure. Drawings wait in one queue and run one at a
//! time, each cut into tasks of ~12 ms of plotly's work (`plotly_slices`),
//! `aria-busy` meanwhile.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use leptos::html;
use leptos::prelude::*;
use leptos::task::spawn_local;
use serde_json::Value;

use super::plotly_js;
use super::task_queue::{Later, Queue};
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
    // Built once per change: the callers pass derived signals, and this
    // component reads the figure four times (height, title, the drawing's
    // trigger and the drawing).
    let figure = Memo::new(move |_| figure.get());
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
    // A drawing is queued (it may wait for the typing to pause) or under
    // way (it takes several tasks): `aria-busy`, which also tells the
    // tests a chart is not finished yet.
    let busy = RwSignal::new(false);
    let visible = RwSignal::new(false);
    // The figure last drawn and the width it was drawn at [px].
    let drawn = StoredValue::new(None::<(Value, i32)>);
    // The page's width changed: a chart is redrawn at its new width, by
    // this queue, sliced (not by plotly's own resize handler, which would
    // redraw every chart at once, each in one piece).
    let resized = Trigger::new();
    let on_resize = window_event_listener(leptos::ev::resize, move |_| resized.notify());
    on_cleanup(move || on_resize.remove());
    // Outlives the component while a drawing is under way: see `Drawing`.
    let drawing = Rc::new(Drawing::default());
    Effect::new({
        let drawing = Rc::clone(&drawing);
        move |_| {
            if let Some(el) = node.get() {
                observe_visibility(&el, visible);
                drawing.attach(&el);
            }
        }
    });
    // One drawing at a time, queued (`Queue::Draws`); the job reads the
    // newest figure when its turn comes, so queued edits coalesce.
    let queued = StoredValue::new(false);
    let draw = {
        let drawing = Rc::clone(&drawing);
        move |sliced: bool| -> Option<Later> {
            let _ = queued.try_set_value(false);
            let (Some(Some(el)), Some(Some(fig)), Some(true)) = (
                node.try_get_untracked(),
                figure.try_get_untracked(),
                visible.try_get_untracked(),
            ) else {
                let _ = busy.try_set(false);
                return None;
            };
            let width = el.client_width();
            if drawing.busy.get()
                || drawn
                    .try_with_value(|d| d.as_ref().is_some_and(|(f, w)| *w == width && *f == fig))
                    .unwrap_or(true)
            {
                let _ = busy.try_set(drawing.busy.get());
                return None;
            }
            drawn.set_value(Some((fig.clone(), width)));
            let drawing = Rc::clone(&drawing);
            Some(Box::pin(async move {
                drawing.busy.set(true);
                let _ = busy.try_set(true);
                let slicer = drawing.slicer.borrow().clone();
                let el: &web_sys::HtmlElement = &el;
                let result = plotly_js::react(el, &fig, slicer.as_deref(), !sliced).await;
                drawing.busy.set(false);
                let _ = busy.try_set(false);
                if drawing.removed.get() {
                    drawing.finish(el);
                } else {
                    let _ = error.try_set(result.err().map(|e| e.to_string()));
                }
            }))
        }
    };
    Effect::new({
        let draw = draw.clone();
        move |_| {
            figure.track();
            resized.track();
            let (Some(_), true) = (node.get(), visible.get()) else {
                return;
            };
            if !queued.get_value() {
                queued.set_value(true);
                busy.set(true);
                let draw = draw.clone();
                Queue::Draws.push(Box::new(move || draw(true)));
            }
        }
    });
    // Printing (or a full-page capture through print) needs every chart,
    // not only those near the viewport: draw this one now, in the event,
    // in one piece (plotly then draws synchronously).
    let printing = window_event_listener(leptos::ev::beforeprint, move |_| {
        let _ = visible.try_update_untracked(|v| *v = true);
        if let Some(done) = draw(false) {
            spawn_local(done);
        }
    });
    on_cleanup(move || printing.remove());
    // Cleanups run before the owner's stored values go.
    let drawing = StoredValue::new_local(drawing);
    on_cleanup(move || {
        if let Some(el) = node.get_untracked() {
            let _ = drawing.try_with_value(|d| d.remove(&el));
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
                    error.set(Some(e.to_string()));
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
            <div class="chart" node_ref=node data-testid=testid style:height=height aria-busy=move || busy.get().then_some("true")></div>
            <div class="chart-actions">
                <button type="button" class="small" on:click=export("svg") data-testid=svg_testid>"SVG"</button>
                <button type="button" class="small" on:click=export("png") data-testid=png_testid>"PNG"</button>
                {move || error.get().map(|e| view! { <span class="field-error">"chart: " {e}</span> })}
            </div>
        </figure>
    }
}

/// A chart's drawing state, shared with the drawing under way, which can
/// outlive the component: removed mid-drawing, the chart is purged when
/// that drawing has finished.
#[derive(Default)]
struct Drawing {
    slicer: RefCell<Option<Rc<plotly_js::Slicer>>>,
    busy: Cell<bool>,
    removed: Cell<bool>,
}

impl Drawing {
    fn attach(&self, el: &web_sys::HtmlElement) {
        let mut slicer = self.slicer.borrow_mut();
        if slicer.is_none() {
            *slicer = plotly_js::Slicer::install(el).map(Rc::new);
        }
    }

    /// Purges the chart now, or when the drawing under way has finished
    /// (detached: its pauses never fail, see `plotly_slices`).
    fn remove(&self, el: &web_sys::HtmlElement) {
        self.removed.set(true);
        if !self.busy.get() {
            self.finish(el);
        }
    }

    fn finish(&self, el: &web_sys::HtmlElement) {
        plotly_js::purge(el);
        self.slicer.borrow_mut().take();
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
