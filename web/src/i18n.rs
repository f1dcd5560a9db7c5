//! The page's own words in the languages of the lessons. Every key has
//! both; a test fails when a component asks (`words`) for a key the table lacks, or
//! when a string is in one language only.

use crate::lessons::Lang;

/// (key, English, Chinese). Chinese terms follow spec 003, the Chinese
/// edition of API Concepts (名字空间, 资源版本, 终结器, 试运行…).
const TABLE: &[(&str, &str, &str)] = &[
    ("lessons", "Lessons", "课程"),
    ("pick", "Pick a lesson", "选择一门课程"),
    ("pick-note", "Opening a lesson replaces this tab's cluster with a fresh one (export yours first to keep it). The clock stays paused, so everyone who opens the same lesson sees the same resourceVersions.", "打开课程会用一个全新的集群替换此标签页中的集群(如需保留,请先导出)。时钟保持暂停,因此打开同一课程的每个人看到的 resourceVersion 都相同。"),
    ("loading", "Loading the lessons…", "正在加载课程……"),
    ("load-failed", "The lessons could not be loaded", "无法加载课程"),
    ("step", "Step", "步骤"),
    ("of", "of", "/"),
    ("try", "Try", "请尝试"),
    ("done", "Done: what you did is what the docs describe.", "完成:你所做的正是文档所描述的。"),
    ("waiting", "Not yet.", "尚未完成。"),
    ("previous", "Previous", "上一步"),
    ("next", "Next", "下一步"),
    ("show-me", "Show me", "演示给我看"),
    ("reset", "Reset this step", "重置此步骤"),
    ("close", "Close the lesson", "关闭课程"),
    ("only-panels", "Only this lesson's panels", "仅显示本课程的面板"),
    ("shown", "Show me ran", "演示运行了"),
    ("finished", "You have finished this lesson.", "你已完成本课程。"),
    ("language", "Language", "语言"),
    ("permalink", "Link to this step", "此步骤的链接"),
];

/// The page's word for `key` in `lang` (the key itself if the table lacks
/// it, which a test rules out for every key the components use).
pub fn words(key: &str, lang: Lang) -> &'static str {
    match TABLE.iter().find(|(k, _, _)| *k == key) {
        Some((_, en, zh)) => match lang {
            Lang::En => en,
            Lang::Zh => zh,
        },
        None => "?",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kubesim::sort::Order;

    #[test]
    fn every_string_is_in_both_languages_once() {
        let mut keys: Vec<&str> = TABLE.iter().map(|(k, _, _)| *k).collect();
        keys.order();
        keys.dedup();
        assert_eq!(keys.len(), TABLE.len(), "a key is in the table twice");
        for (k, en, zh) in TABLE {
            assert!(!en.trim().is_empty() && !zh.trim().is_empty(), "{k} is missing in one language");
        }
    }

    /// Every `words("key", …)` in the components names a key of the table.
    #[test]
    fn every_key_the_components_ask_for_is_in_the_table() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/components");
        let mut asked = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
            for (at, _) in text.match_indices("words(\"") {
                let rest = &text[at + 7..];
                let key = &rest[..rest.find('"').unwrap()];
                assert!(TABLE.iter().any(|(k, _, _)| *k == key), "no strings for {key:?}");
                asked += 1;
            }
        }
        assert!(asked > 10, "the components ask for the lesson pane's words");
    }
}
