//! The browser app's entry point (built by Trunk for wasm32).

fn main() {
    #[cfg(target_arch = "wasm32")]
    kubesim_web::start();
    #[cfg(not(target_arch = "wasm32"))]
    eprintln!("kubesim-web is the browser app: build it with `trunk build index.html` (see README.md)");
}
