//! How the page is shown, as the reader chose it (kept in the browser's
//! storage, apart from the session): the base text size (13, 16 or 18 px,
//! for reading at a desk or projecting), the layout (every panel, or
//! "focus": kubectl, watch lanes and the inspector only) and the theme
//! (the system's, light or dark).
//!
//! Stored as one short string, `text=16;layout=focus;theme=dark`; what it
//! does not understand is left at its default, so an older or damaged
//! value never stops the page.

/// The base text sizes offered (px); every size in the page scales with it.
pub const TEXT_SIZES: [u8; 3] = [13, 16, 18];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// Every panel in a grid.
    All,
    /// kubectl, the watch lanes and the inspector only (for projecting).
    Focus,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Theme {
    /// Follows `prefers-color-scheme`.
    System,
    Light,
    Dark,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ViewPrefs {
    pub text: u8,
    pub layout: Layout,
    pub theme: Theme,
}

impl Default for ViewPrefs {
    fn default() -> Self {
        ViewPrefs { text: TEXT_SIZES[0], layout: Layout::All, theme: Theme::System }
    }
}

impl Layout {
    pub fn as_str(self) -> &'static str {
        match self {
            Layout::All => "all",
            Layout::Focus => "focus",
        }
    }

    pub fn parse(s: &str) -> Option<Layout> {
        [Layout::All, Layout::Focus].into_iter().find(|l| l.as_str() == s)
    }
}

impl Theme {
    pub fn as_str(self) -> &'static str {
        match self {
            Theme::System => "system",
            Theme::Light => "light",
            Theme::Dark => "dark",
        }
    }

    pub fn parse(s: &str) -> Option<Theme> {
        [Theme::System, Theme::Light, Theme::Dark].into_iter().find(|t| t.as_str() == s)
    }
}

impl ViewPrefs {
    /// The stored form.
    pub fn encode(&self) -> String {
        format!("text={};layout={};theme={}", self.text, self.layout.as_str(), self.theme.as_str())
    }

    /// Reads a stored value; anything unknown or out of range keeps its
    /// default.
    pub fn decode(s: &str) -> ViewPrefs {
        let mut p = ViewPrefs::default();
        for part in s.split(';') {
            let Some((k, v)) = part.split_once('=') else { continue };
            match k.trim() {
                "text" => {
                    if let Some(t) = v.trim().parse::<u8>().ok().filter(|t| TEXT_SIZES.contains(t)) {
                        p.text = t;
                    }
                }
                "layout" => p.layout = Layout::parse(v.trim()).unwrap_or(p.layout),
                "theme" => p.theme = Theme::parse(v.trim()).unwrap_or(p.theme),
                _ => {}
            }
        }
        p
    }

    /// How much larger than the default every size is (1.0 at 13 px): for
    /// sizes the page computes (a virtual list's row height).
    pub fn scale(&self) -> f64 {
        f64::from(self.text) / f64::from(TEXT_SIZES[0])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn preferences_survive_storage_and_bad_values_keep_defaults() {
        let p = ViewPrefs { text: 18, layout: Layout::Focus, theme: Theme::Dark };
        assert_eq!(ViewPrefs::decode(&p.encode()), p);
        assert_eq!(p.encode(), "text=18;layout=focus;theme=dark");
        assert_eq!(ViewPrefs::decode(""), ViewPrefs::default());
        let odd = ViewPrefs::decode("text=40;layout=sideways;theme=dark;extra;=;colour=red");
        assert_eq!(odd, ViewPrefs { theme: Theme::Dark, ..ViewPrefs::default() });
        assert_eq!(ViewPrefs::decode("text=16").text, 16);
        assert!((ViewPrefs::decode("text=16").scale() - 16.0 / 13.0).abs() < 1e-9);
        assert!((ViewPrefs::default().scale() - 1.0).abs() < 1e-9);
    }
}
