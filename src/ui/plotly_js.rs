//! Our own binding to the page's plotly.js: it takes an element, not a div
//! id, and never panics (plotly.rs's bindings `expect` on rejection).

use serde_json::Value;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = Plotly, js_name = react, catch)]
    fn plotly_react(
        el: &web_sys::HtmlElement,
        data: &JsValue,
        layout: &JsValue,
        config: &JsValue,
    ) -> Result<js_sys::Promise, JsValue>;
    #[wasm_bindgen(js_namespace = Plotly, js_name = purge, catch)]
    fn plotly_purge(el: &web_sys::HtmlElement) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_namespace = Plotly, js_name = downloadImage, catch)]
    fn plotly_download_image(
        el: &web_sys::HtmlElement,
        opts: &JsValue,
    ) -> Result<js_sys::Promise, JsValue>;
}

fn js(v: &Value) -> JsValue {
    js_sys::JSON::parse(&v.to_string()).unwrap_or(JsValue::NULL)
}

fn describe(e: &JsValue) -> String {
    e.as_string()
        .or_else(|| {
            e.dyn_ref::<js_sys::Error>()
                .map(|e| String::from(e.message()))
        })
        .unwrap_or_else(|| "plotly.js failed".into())
}

/// Draws or updates a figure; reports failure instead of throwing.
pub async fn react(el: &web_sys::HtmlElement, figure: &Value) -> Result<(), String> {
    let config = serde_json::json!({
        "responsive": true,
        "displaylogo": false,
        "modeBarButtonsToRemove": ["sendDataToCloud", "editInChartStudio"],
    });
    let p = plotly_react(
        el,
        &js(&figure["data"]),
        &js(&figure["layout"]),
        &js(&config),
    )
    .map_err(|e| describe(&e))?;
    JsFuture::from(p)
        .await
        .map(|_| ())
        .map_err(|e| describe(&e))
}

pub fn purge(el: &web_sys::HtmlElement) {
    let _ = plotly_purge(el);
}

/// Saves the chart as an SVG or PNG file.
pub async fn download(
    el: &web_sys::HtmlElement,
    format: &str,
    filename: &str,
) -> Result<(), String> {
    let opts = js(
        &serde_json::json!({ "format": format, "filename": filename, "width": 1000, "height": 500 }),
    );
    let p = plotly_download_image(el, &opts).map_err(|e| describe(&e))?;
    JsFuture::from(p)
        .await
        .map(|_| ())
        .map_err(|e| describe(&e))
}
