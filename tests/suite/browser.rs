//! A real browser for the tests: the system's Chromium, headless, driven over the DevTools
//! protocol (a WebSocket, JSON messages). Nothing is downloaded: scripts/test installs Chromium
//! with the system's package manager.

use std::io::{BufRead, BufReader};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use base64::Engine as _;
use serde_json::{Value, json};
use tungstenite::{Message, WebSocket, stream::MaybeTlsStream};

pub struct Browser {
    child: Child,
    ws: WebSocket<MaybeTlsStream<TcpStream>>,
    next: u64,
    /// Chromium's DevTools port.
    port: u16,
}

impl Browser {
    /// Chromium showing `url`, with a profile in `profile`.
    pub fn launch(profile: &Path, url: &str) -> Browser {
        Browser::launch_with(profile, url, &[])
    }

    /// [`Browser::launch`] with more of Chromium's flags.
    pub fn launch_with(profile: &Path, url: &str, flags: &[&str]) -> Browser {
        Browser::start(profile, url, &[&["--disable-gpu"], flags].concat())
    }

    /// [`Browser::launch_with`] with the GPU process on: WebGL2 and WebGPU where `flags` give
    /// Chromium an adapter (SwiftShader, lavapipe).
    #[allow(dead_code)]
    pub fn launch_drawing(profile: &Path, url: &str, flags: &[&str]) -> Browser {
        Browser::start(profile, url, flags)
    }

    fn start(profile: &Path, url: &str, flags: &[&str]) -> Browser {
        let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"]
            .into_iter()
            .find(|c| Path::new(c).exists())
            .expect("no Chromium: install it (apt-get install chromium; scripts/test does)");
        let mut child = std::process::Command::new(chromium)
            .args([
                "--headless",
                "--no-sandbox",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--hide-scrollbars",
            ])
            .args(flags)
            .arg(format!("--user-data-dir={}", profile.display()))
            .args(["--remote-debugging-port=0", "--remote-allow-origins=*"])
            .arg(url)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start Chromium");
        // "DevTools listening on ws://127.0.0.1:PORT/devtools/browser/ID"
        let err = BufReader::new(child.stderr.take().expect("stderr"));
        let mut port = None;
        for line in err.lines() {
            let line = line.expect("Chromium's output");
            if let Some(rest) = line.split("ws://127.0.0.1:").nth(1) {
                port = rest.split('/').next().and_then(|p| p.parse::<u16>().ok());
                break;
            }
        }
        let port = port.expect("Chromium's DevTools address");
        let t0 = Instant::now();
        let page = loop {
            let targets: Value = serde_json::from_slice(&devtools_list(port)).unwrap_or(Value::Null);
            let found = targets
                .as_array()
                .and_then(|t| t.iter().find(|t| t["type"] == "page").and_then(|t| t["webSocketDebuggerUrl"].as_str().map(str::to_string)));
            if let Some(ws) = found {
                break ws;
            }
            assert!(t0.elapsed() < Duration::from_secs(30), "no page in Chromium");
            std::thread::sleep(Duration::from_millis(100));
        };
        let (ws, _) = tungstenite::connect(page).expect("the page's DevTools socket");
        let mut b = Browser { child, ws, next: 0, port };
        b.call("Page.enable", json!({}));
        b.call("Emulation.setDeviceMetricsOverride", json!({ "width": 1400, "height": 1000, "deviceScaleFactor": 1, "mobile": false }));
        b
    }

    /// Sends a command and waits for its answer (events on the way are passed over).
    pub fn call(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = self.next;
        self.ws.send(Message::text(json!({ "id": id, "method": method, "params": params }).to_string())).expect("send to Chromium");
        loop {
            let m = self.ws.read().expect("read from Chromium");
            let Message::Text(t) = m else { continue };
            let v: Value = serde_json::from_str(t.as_str()).expect("JSON from Chromium");
            if v["id"] == id {
                assert!(v.get("error").is_none(), "{method}: {v}");
                return v["result"].clone();
            }
        }
    }

    /// The value of a JavaScript expression in the page.
    pub fn eval(&mut self, expr: &str) -> Value {
        let r = self.call("Runtime.evaluate", json!({ "expression": expr, "returnByValue": true }));
        r["result"]["value"].clone()
    }

    /// The element's box in the page: x, y, width, height.
    pub fn rect(&mut self, id: &str) -> (f64, f64, f64, f64) {
        let r = self.eval(&format!("JSON.stringify(document.getElementById('{id}').getBoundingClientRect())"));
        let r: Value = serde_json::from_str(r.as_str().expect("a box")).unwrap();
        (r["x"].as_f64().unwrap(), r["y"].as_f64().unwrap(), r["width"].as_f64().unwrap(), r["height"].as_f64().unwrap())
    }

    pub fn screenshot(&mut self) -> simreel::output::png::Decoded {
        let r = self.call("Page.captureScreenshot", json!({ "format": "png" }));
        let png = base64::engine::general_purpose::STANDARD.decode(r["data"].as_str().expect("image data")).unwrap();
        simreel::output::png::decode(&png).unwrap()
    }

    /// The pixels on screen inside the element `id`.
    pub fn element_pixels(&mut self, id: &str) -> simreel::output::png::Decoded {
        let (x, y, w, h) = self.rect(id);
        let shot = self.screenshot();
        let (x, y, w, h) = (x.round() as u32, y.round() as u32, w.round() as u32, h.round() as u32);
        let mut rgba = Vec::with_capacity((w * h * 4) as usize);
        for row in y..y + h {
            let start = ((row * shot.width + x) * 4) as usize;
            rgba.extend_from_slice(&shot.rgba[start..start + (w * 4) as usize]);
        }
        simreel::output::png::Decoded { width: w, height: h, rgba }
    }

    /// Every page (tab or window) open: its address and its DevTools socket.
    pub fn pages(&self) -> Vec<(String, String)> {
        let targets: Value = serde_json::from_slice(&devtools_list(self.port)).unwrap_or(Value::Null);
        targets
            .as_array()
            .map(|t| {
                t.iter()
                    .filter(|t| t["type"] == "page")
                    .filter_map(|t| Some((t["url"].as_str()?.to_string(), t["webSocketDebuggerUrl"].as_str()?.to_string())))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The value of a JavaScript expression in another page (by its DevTools socket).
    pub fn eval_in(socket: &str, expr: &str) -> Value {
        let (mut ws, _) = tungstenite::connect(socket).expect("the page's DevTools socket");
        let call = json!({ "id": 1, "method": "Runtime.evaluate", "params": { "expression": expr, "returnByValue": true } });
        ws.send(Message::text(call.to_string())).expect("send to Chromium");
        loop {
            let Message::Text(t) = ws.read().expect("read from Chromium") else { continue };
            let v: Value = serde_json::from_str(t.as_str()).expect("JSON from Chromium");
            if v["id"] == 1 {
                return v["result"]["result"]["value"].clone();
            }
        }
    }

    /// A click of the mouse in the middle of the element `id` (as a person clicks, not a script).
    pub fn click(&mut self, id: &str) {
        let (x, y, w, h) = self.rect(id);
        let (x, y) = (x + w / 2.0, y + h / 2.0);
        self.call("Input.dispatchMouseEvent", json!({ "type": "mouseMoved", "x": x, "y": y }));
        for t in ["mousePressed", "mouseReleased"] {
            self.call("Input.dispatchMouseEvent", json!({ "type": t, "x": x, "y": y, "button": "left", "clickCount": 1 }));
        }
    }

    /// Presses and lets go of a key (a DOM key name, e.g. "End").
    pub fn key(&mut self, key: &str) {
        let code = match key {
            "End" => 35,
            "Home" => 36,
            "ArrowLeft" => 37,
            "ArrowRight" => 39,
            " " => 32,
            k => k.chars().next().unwrap().to_ascii_uppercase() as i64,
        };
        for t in ["keyDown", "keyUp"] {
            self.call("Input.dispatchKeyEvent", json!({ "type": t, "key": key, "code": key, "windowsVirtualKeyCode": code }));
        }
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The body of Chromium's `GET /json/list` (its pages and their DevTools sockets); empty while it
/// is not answering yet.
fn devtools_list(port: u16) -> Vec<u8> {
    use std::io::{Read, Write};
    let Ok(mut s) = TcpStream::connect(("127.0.0.1", port)) else { return Vec::new() };
    let _ = s.set_read_timeout(Some(Duration::from_secs(30)));
    let request = format!("GET /json/list HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n");
    if s.write_all(request.as_bytes()).is_err() {
        return Vec::new();
    }
    // to the Content-Length Chromium gives (it may keep the connection open)
    let (mut bytes, mut buf) = (Vec::new(), [0u8; 16384]);
    loop {
        let n = s.read(&mut buf).unwrap_or(0);
        bytes.extend_from_slice(&buf[..n]);
        let Some(head) = bytes.windows(4).position(|w| w == b"\r\n\r\n") else {
            if n == 0 {
                return Vec::new();
            }
            continue;
        };
        let length = String::from_utf8_lossy(&bytes[..head])
            .lines()
            .find_map(|l| l.to_ascii_lowercase().strip_prefix("content-length:").and_then(|v| v.trim().parse::<usize>().ok()));
        if n == 0 || length.is_some_and(|len| bytes.len() >= head + 4 + len) {
            return bytes.split_off(head + 4);
        }
    }
}
