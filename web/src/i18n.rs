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

/// The rest of the page: each English text as the components write it,
/// with its Chinese. `{}` in a text is filled by `fill`.
const UI: &[(&str, &str)] = &[
    ("dismiss", "关闭"),
    (" the Kubernetes API, simulated in this tab", " 在此标签页中模拟的 Kubernetes API"),
    ("Request console", "请求控制台"),
    ("Request log", "请求日志"),
    ("Revision timeline", "修订时间线"),
    ("Chunked list", "分块列表"),
    ("resourceVersion explorer", "resourceVersion 探索器"),
    ("Fairness", "公平性"),
    ("Metrics", "指标"),
    ("Watch lanes", "监视通道"),
    ("Object inspector", "对象检查器"),
    ("Owners", "属主"),
    ("A Deployment comes up", "一个 Deployment 启动起来"),
    ("Owners shows the Deployment, its ReplicaSet and three pods going from Pending to Running. The controllers, the scheduler and the kubelets did that through the API: tick “show the controllers' requests” in the Request log to see each of their requests.", "“属主”面板显示该 Deployment、它的 ReplicaSet 以及三个从 Pending 变为 Running 的 Pod。这是控制器、调度器和 kubelet 通过 API 完成的:在“请求日志”中勾选“显示控制器的请求”,即可看到它们的每一个请求。"),
    ("A list read in chunks", "分块读取的列表"),
    ("The Request log shows one request per page: limit=2, then continue=… with the token the previous page returned, until the list is whole. Every page is read at the same resourceVersion.", "“请求日志”中每一页对应一个请求:先是 limit=2,然后是带有上一页返回的令牌的 continue=…,直到列表完整。每一页都在同一个资源版本上读取。"),
    ("Watch, then write", "先监视,再写入"),
    ("A watch lane opened: it listed the ConfigMaps, then watches from that list's resourceVersion. Now run kubectl create configmap demo --from-literal=greeting=hello and see ADDED arrive in the lane with its new resourceVersion.", "一条监视通道打开了:它先列举 ConfigMap,然后从该列表的资源版本开始监视。现在运行 kubectl create configmap demo --from-literal=greeting=hello,看 ADDED 事件带着新的资源版本到达通道。"),
    ("new here? show the starters", "初次使用?显示入门示例"),
    ("Getting started", "入门"),
    (" is the Kubernetes API simulated in this tab: each command becomes the HTTP requests a real client sends, answered as kube-apiserver answers them, and every panel shows a part of that conversation. Read along with ", " 是在此标签页中模拟的 Kubernetes API:每条命令都会变成真实客户端发送的 HTTP 请求,并按 kube-apiserver 的方式作答,每个面板展示这段对话的一部分。请对照阅读 "),
    ("Kubernetes API Concepts", "Kubernetes API 概念"),
    ("hide", "隐藏"),
    ("simulated time", "模拟时间"),
    ("history older than this is compacted", "早于此的历史会被压缩"),
    ("+1 min", "+1 分钟"),
    ("+5 min", "+5 分钟"),
    ("compact now", "立即压缩"),
    ("the namespace controller and the garbage collector", "名字空间控制器和垃圾收集器"),
    ("one reconcile of the next controller", "让下一个控制器执行一次调谐"),
    ("step", "单步"),
    ("export", "导出"),
    ("import", "导入"),
    ("reset", "重置"),
    ("Imported the session from the file.", "已从文件导入会话。"),
    ("Import refused: {}", "导入被拒绝:{}"),
    ("Import failed: {}", "导入失败:{}"),
    ("Export failed: {}", "导出失败:{}"),
    ("reading the saved journal…", "正在读取已保存的日志…"),
    ("Start a new session? This cluster and its history are discarded (export first to keep them).", "开始新的会话?此集群及其历史将被丢弃(如需保留,请先导出)。"),
    ("Started a new session.", "已开始新的会话。"),
    ("Restored your session from this browser's storage.", "已从此浏览器的存储中恢复你的会话。"),
    ("The saved session could not be restored ({}); it was kept in this browser's database {} and a new session started.", "无法恢复已保存的会话({});它已保留在此浏览器的数据库 {} 中,并已开始新的会话。"),
    ("The saved session could not be restored ({}) nor kept aside ({}): this tab saves nothing, so it stays as it is.", "无法恢复已保存的会话({}),也无法另存({}):此标签页不保存任何内容,以保持其原样。"),
    ("This session is open in another tab, which saves it: this tab shows it as last saved and saves nothing.", "此会话已在另一个标签页中打开并由其保存:此标签页显示最后保存的状态,不保存任何内容。"),
    ("Not saved ({}). Your last save is intact; export the session to a file to keep this one.", "未保存({})。上次保存的内容完好无损;如需保留当前会话,请将其导出到文件。"),
    ("open a separate session here", "在此打开一个单独的会话"),
    ("not saved in this tab", "此标签页不保存"),
    ("not saved", "未保存"),
    ("saving {} writes…", "正在保存 {} 个写入…"),
    ("building the starter cluster…", "正在创建初始集群…"),
    ("saved in this browser", "已保存在此浏览器中"),
    ("not saved yet", "尚未保存"),
    ("revision {}", "修订版本 {}"),
    ("compacted ≤ {}", "已压缩 ≤ {}"),
    ("history window {}m{}s", "历史窗口 {} 分 {} 秒"),
    ("resume clock", "恢复时钟"),
    ("pause clock", "暂停时钟"),
    ("resume controllers", "恢复控制器"),
    ("pause controllers", "暂停控制器"),
    ("text", "文字"),
    ("layout", "布局"),
    ("theme", "主题"),
    ("all panels", "全部面板"),
    ("focus: kubectl, lanes, inspector", "专注:kubectl、通道、检查器"),
    ("as the system", "跟随系统"),
    ("light", "浅色"),
    ("dark", "深色"),
    ("acting as", "身份"),
    ("groups, comma-separated", "组,以逗号分隔"),
    ("requests carry Impersonate-User: {}", "请求带有 Impersonate-User:{}"),
    ("the cluster's administrator (kubernetes-admin, in system:masters)", "集群管理员(kubernetes-admin,属于 system:masters)"),
    ("copied", "已复制"),
    ("copy", "复制"),
    ("run", "运行"),
    ("earlier commands", "之前的命令"),
    ("kubectl command (↑/↓ recall, Ctrl-L clears)", "kubectl 命令(↑/↓ 调出历史,Ctrl-L 清屏)"),
    ("-f - reads this box: paste YAML here for create -f -, apply -f -, replace -f - (several documents separated by ---)", "-f - 读取此框:在此粘贴 YAML,用于 create -f -、apply -f -、replace -f -(多个文档以 --- 分隔)"),
    ("copy the output", "复制输出"),
    ("copy this output", "复制这段输出"),
    ("collection to watch", "要监视的集合"),
    ("watch query parameters", "监视查询参数"),
    ("list first", "先列举"),
    ("open watch", "打开监视"),
    ("stop", "停止"),
    ("resume", "恢复"),
    ("No watch is open. Give a collection’s path above and press “open watch”: a lane shows what the watch delivers (with “list first”, the list and then a watch from its resourceVersion) — every ADDED, MODIFIED, DELETED and BOOKMARK event as it arrives. Click an event to inspect its object.", "尚未打开任何监视。在上方给出一个集合的路径并点击“打开监视”:通道会显示监视送达的内容(勾选“先列举”时,先是列表,然后从其资源版本开始监视)——每个 ADDED、MODIFIED、DELETED 和 BOOKMARK 事件在到达时都会显示。点击事件即可检查其对象。"),
    ("last rv {}", "最近 rv {}"),
    ("watch events (Enter inspects one)", "监视事件(按 Enter 检查)"),
    ("object", "个对象"),
    ("objects", "个对象"),
    (" at resourceVersion {}", " 位于资源版本 {}"),
    ("up to date", "已是最新"),
    ("1 revision behind", "落后 1 个修订版本"),
    ("{} revisions behind", "落后 {} 个修订版本"),
    ("no resourceVersion yet", "尚无资源版本"),
    ("client cache: {} {}{}", "客户端缓存:{} {}{}"),
    ("the server is at resourceVersion {}", "服务器位于资源版本 {}"),
    ("the client’s cache (resourceVersion, name)", "客户端缓存(资源版本,名称)"),
    ("listing", "列举中"),
    ("watching", "监视中"),
    ("waiting for bookmark", "等待书签"),
    ("resuming", "恢复中"),
    ("relisting after 410", "410 之后重新列举"),
    ("stopped", "已停止"),
    ("closed: {}", "已关闭:{}"),
    ("remove", "移除"),
    ("diff with previous", "与上一版本比较"),
    ("lifecycle phase", "生命周期阶段"),
    ("the object", "该对象"),
    ("Revision history", "修订历史"),
    ("Field ownership", "字段归属"),
    ("fields and their managers", "字段及其管理者"),
    ("conflict", "冲突"),
    ("Name an object above (type, namespace, name — each completes), or click one in a watch lane, the owners view or the timeline.", "在上方指定一个对象(类型、名字空间、名称——均可补全),或在监视通道、属主视图或时间线中点击一个对象。"),
    ("live", "存活"),
    ("terminating", "终止中"),
    ("removed", "已移除"),
    ("revision {} → {}", "修订版本 {} → {}"),
    ("deletionTimestamp {} — waiting on {} finalizer(s):", "deletionTimestamp {} —— 等待 {} 个终结器:"),
    ("finalizers: {}", "终结器:{}"),
    ("show JSON", "显示 JSON"),
    ("show YAML", "显示 YAML"),
    ("copy the object", "复制对象"),
    ("type", "类型"),
    ("namespace", "名字空间"),
    ("name", "名称"),
    ("open", "打开"),
    ("(cluster-scoped)", "(集群作用域)"),
    ("method", "方法"),
    ("path", "路径"),
    ("send", "发送"),
    ("query", "查询"),
    ("YAML body → JSON", "YAML 请求体 → JSON"),
    ("request body, JSON or YAML", "请求体,JSON 或 YAML"),
    ("The response appears here: its status line, headers and body as the API server sends them. Try GET on the path above, or pick POST and give a body.", "响应会显示在这里:API 服务器发送的状态行、头部和响应体。试试对上面的路径执行 GET,或选择 POST 并给出请求体。"),
    ("show the page's own reads (timeline, owners view, completion)", "显示页面自身的读取(时间线、属主视图、补全)"),
    ("show the controllers' requests", "显示控制器的请求"),
    ("show Lease renewals ({})", "显示 Lease 续约({})"),
    ("No requests to show yet. Every request the page sends — from kubectl, the console, the watch lanes and the pager — appears here with its status and resourceVersion (the controllers' behind the checkbox above); click one to see it in full.", "尚无可显示的请求。页面发送的每个请求——来自 kubectl、控制台、监视通道和分页器——都会带着状态和资源版本出现在这里(控制器的请求在上方复选框之后);点击一个即可查看完整内容。"),
    ("#{} from {} at {}", "#{} 来自 {},于 {}"),
    (" {} requests", " {} 个请求"),
    ("requests (Enter opens one)", "请求(按 Enter 打开)"),
    (" (a list with resourceVersionMatch=Exact per resource)", " (每种资源一次带 resourceVersionMatch=Exact 的列举)"),
    ("scroll the axis", "滚动坐标轴"),
    ("the newest revision the axis shows", "坐标轴显示的最新修订版本"),
    ("compacted: revisions ≤ {} are gone", "已压缩:修订版本 ≤ {} 已不存在"),
    ("The cluster at resourceVersion {}", "资源版本 {} 时的集群"),
    (" · revisions 1–{} were compacted before this page read them", " · 修订版本 1–{} 在本页读取之前已被压缩"),
    ("now {} · head {} · compacted ≤ {} · window {}s · showing revisions {}–{}{}", "现在 {} · 最新 {} · 已压缩 ≤ {} · 窗口 {} 秒 · 显示修订版本 {}–{}{}"),
    ("Nothing left to show: every write up to revision {} was compacted (history is kept for {}s). New writes appear here as they happen.", "没有可显示的内容:直到修订版本 {} 的所有写入都已被压缩(历史保留 {} 秒)。新的写入发生时会显示在这里。"),
    ("revisions (Enter shows the cluster at one)", "修订版本(按 Enter 显示该版本的集群)"),
    ("namespace ", "名字空间 "),
    ("No workloads or pods in this namespace. Try kubectl create deployment web --image=nginx --replicas=3 (or another namespace: kube-system runs CoreDNS): each Deployment shows here with its ReplicaSets and their pods, live.", "此名字空间中没有工作负载或 Pod。试试 kubectl create deployment web --image=nginx --replicas=3(或换一个名字空间:kube-system 中运行着 CoreDNS):每个 Deployment 都会与其 ReplicaSet 及其 Pod 一起实时显示在这里。"),
    ("{} (terminating)", "{}(终止中)"),
    ("Wire formats: JSON · YAML · Table · protobuf", "传输格式:JSON · YAML · Table · protobuf"),
    ("Hide wire formats", "隐藏传输格式"),
    ("Not an object or list of a built-in kind.", "不是内置类型的对象或列表。"),
    ("{} bytes", "{} 字节"),
    ("priority 1: kubectl shows it with -o wide", "优先级 1:kubectl 在 -o wide 时显示"),
    ("This shows the Secret's values as the API returns them: base64-encoded, not encrypted. Anyone who may read a Secret reads its values; the native door never logs them.", "这里按 API 返回的样子显示 Secret 的值:经过 base64 编码,而非加密。任何可以读取 Secret 的人都能读到其值;原生入口从不记录它们。"),
    ("collection to list", "要列举的集合"),
    ("limit ", "limit "),
    ("first page", "第一页"),
    ("next page", "下一页"),
    ("page {} ", "第 {} 页 "),
    ("HTTP {} · resourceVersion {} · {} items · remainingItemCount {}", "HTTP {} · 资源版本 {} · {} 个条目 · remainingItemCount {}"),
    ("continue: {}", "continue:{}"),
    ("decoded: {}", "解码后:{}"),
    ("No page read yet. “first page” lists the collection `limit` items at a time: each page shows its items, its continue token and remainingItemCount, and “next page” sends the token back for the next one, all from the first page’s snapshot.", "尚未读取任何页。“第一页”每次列举集合中 `limit` 个条目:每页显示其条目、continue 令牌和 remainingItemCount,“下一页”把令牌发回以获取下一页,所有页都来自第一页的快照。"),
    ("how kubesim differs from a cluster", "kubesim 与真实集群的差异"),
    ("the chosen series over the last two minutes of simulated time", "所选序列在最近两分钟模拟时间内的变化"),
    ("requests/s by verb", "按动词统计的每秒请求数"),
    ("requests/s by code", "按状态码统计的每秒请求数"),
    ("in flight (last second's most)", "处理中(上一秒的最大值)"),
    ("waiting in APF queues", "在 APF 队列中等待"),
    ("max {} · last {} s of simulated time · ", "最大 {} · 最近 {} 秒模拟时间 · "),
    ("verb ", "动词 "),
    ("unset", "不设置"),
    ("The table says: ", "表格中说:"),
    ("No row of the table covers this combination.", "表格中没有哪一行涵盖这种组合。"),
    ("paging ", "分页 "),
    ("list: resourceVersionMatch and paging", "list:resourceVersionMatch 与分页"),
    ("a watch, opened in a lane (its first events say where it started)", "一个监视,已在通道中打开(它的最初几个事件说明从哪里开始)"),
    ("{} items at resourceVersion {}", "资源版本 {1} 处的 {0} 个条目"),
    ("the object at resourceVersion {}", "资源版本 {} 处的对象"),
    ("head ({})", "最新 ({})"),
    ("compacted ({})", "已压缩 ({})"),
    ("One noisy user", "一个吵闹的用户"),
    ("A hundred batch users", "一百个批处理用户"),
    ("noisy lists pods 600 times a second, alice twice; each list takes 300 ms. Both land in global-default, but in different queues: noisy’s fill up and overflow (429), alice’s stays short.", "noisy 每秒列举 Pod 600 次,alice 每秒 2 次;每次列举耗时 300 毫秒。两者都落入 global-default,但在不同的队列中:noisy 的队列被填满并溢出(429),alice 的队列一直很短。"),
    ("100 users of the batch-jobs group, 10 lists a second each: their hands of queues cover every queue of global-default, so alice waits behind them and times out (429 after 15 s). Give batch-jobs a level of its own and run it again.", "batch-jobs 组的 100 个用户,每人每秒列举 10 次:他们分到的队列覆盖了 global-default 的每一个队列,于是 alice 排在他们后面并超时(15 秒后 429)。给 batch-jobs 一个自己的优先级再运行一次。"),
    ("flow", "流"),
    ("FlowSchema → level", "FlowSchema → 优先级"),
    ("sent", "已发送"),
    ("served", "已处理"),
    ("mean wait", "平均等待"),
    ("hand", "手牌"),
    ("priority level", "优先级"),
    ("nominal", "标称"),
    ("lower", "下限"),
    ("upper", "上限"),
    ("limit", "限额"),
    ("borrowed (+) or lent (−)", "借入(+)或借出(−)"),
    ("in use", "使用中"),
    ("queues × length", "队列 × 长度"),
    ("Run 20 s of simulated load:", "运行 20 秒模拟负载:"),
    ("creates a PriorityLevelConfiguration and a FlowSchema for the batch-jobs group", "为 batch-jobs 组创建一个 PriorityLevelConfiguration 和一个 FlowSchema"),
    ("Give batch-jobs its own level", "给 batch-jobs 一个自己的优先级"),
    ("user", "用户"),
    ("how many users (user-0, user-1, …)", "用户数量(user-0、user-1……)"),
    ("group (optional)", "组(可选)"),
    ("requests per second, each", "每个用户每秒的请求数"),
    ("milliseconds each request executes", "每个请求执行的毫秒数"),
    ("add flow", "添加流"),
    ("clear", "清空"),
    ("the queues its requests are dealt to (shuffle sharding)", "其请求被分派到的队列(混洗分片)"),
    ("requests waiting in each queue", "每个队列中等待的请求"),
    ("Your flows.", "你的流。"),
    ("{} users", "{} 个用户"),
    ("1 user", "1 个用户"),
    ("{}: {} × {}/s, {} ms each, namespace {}", "{}:{} × {}/秒,每个 {} 毫秒,名字空间 {}"),
    (" · seats {}/{} · waiting {}", " · 席位 {}/{} · 等待 {}"),
    ("queue {}: empty", "队列 {}:空"),
    ("queue {}: {} waiting, from {}", "队列 {}:{} 个等待,来自 {}"),
    ("Build a scenario ({} flows)", "构建场景({} 个流)"),
    ("{} × {} (hand {})", "{} × {}(手牌 {})"),
    ("a flow needs a user", "一个流需要一个用户"),
    ("{} must be a positive number", "{}必须是正数"),
    ("the rate", "速率"),
    ("the cost", "耗时"),
    ("the number of users", "用户数量"),
    ("The lesson did not load: {}", "课程未能加载:{}"),
    ("There is no lesson “{}”.", "没有名为“{}”的课程。"),
    ("the informer's states", "informer 的状态"),
];

/// The page's text `en` in `lang`: itself in English, its Chinese from
/// the table (a test rules out a text of the components the table lacks,
/// and an entry no component uses).
pub fn tr(en: &'static str, lang: Lang) -> &'static str {
    match lang {
        Lang::En => en,
        Lang::Zh => UI.iter().find(|(k, _)| *k == en).map(|(_, zh)| *zh).unwrap_or(en),
    }
}

/// Marks an English text kept in a table and translated with `tr` where
/// it is shown (the test finds the texts by this mark).
pub const fn en(text: &'static str) -> &'static str {
    text
}

/// A translated text with its `{}`s replaced by `args`, in order; `{0}`,
/// `{1}`… name an argument by its place, for a language that says things
/// in another order.
pub fn fill(template: &str, args: &[&dyn std::fmt::Display]) -> String {
    let mut out = String::with_capacity(template.len() + 16);
    let mut next = 0;
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let close = after.find('}').filter(|&c| after[..c].bytes().all(|b| b.is_ascii_digit()));
        match close {
            Some(c) => {
                let i = if c == 0 {
                    next += 1;
                    next - 1
                } else {
                    after[..c].parse().unwrap_or(usize::MAX)
                };
                if let Some(a) = args.get(i) {
                    out.push_str(&a.to_string());
                }
                rest = &after[c + 1..];
            }
            None => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// How many arguments a template takes.
#[cfg(test)]
fn slots(template: &str) -> usize {
    let numbered = (0..10).filter(|i| template.contains(&format!("{{{i}}}"))).count();
    template.matches("{}").count() + numbered
}

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

    /// The texts the components translate (`tr("…"`, `en("…"`), as written.
    fn asked_texts() -> Vec<String> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/components");
        let mut texts = Vec::new();
        for entry in std::fs::read_dir(dir).unwrap() {
            let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
            for mark in ["tr(", "en("] {
                for (at, _) in text.match_indices(mark) {
                    if text[..at].chars().next_back().is_some_and(|c| c.is_alphanumeric() || c == '_') {
                        continue;
                    }
                    // (rustfmt may put the text on the next line.)
                    let Some(rest) = text[at + 3..].trim_start().strip_prefix('"') else { continue };
                    texts.push(rest[..rest.find('"').unwrap()].to_string());
                }
            }
        }
        texts
    }

    /// Every text the components show in English has its Chinese, every
    /// Chinese text is shown, each once, and both have the same `{}`s.
    #[test]
    fn every_text_of_the_page_is_in_both_languages() {
        let asked = asked_texts();
        assert!(asked.len() > 100, "the components translate their texts: {}", asked.len());
        for text in &asked {
            assert!(UI.iter().any(|(en, _)| en == text), "no Chinese for {text:?}");
        }
        let mut seen: Vec<&str> = UI.iter().map(|(en, _)| *en).collect();
        seen.order();
        seen.dedup();
        assert_eq!(seen.len(), UI.len(), "a text is in the table twice");
        for (en, zh) in UI {
            assert!(asked.iter().any(|t| t == en), "{en:?} is in the table but no component shows it");
            assert!(!zh.trim().is_empty(), "{en:?} has no Chinese");
            assert_eq!(slots(en), slots(zh), "{en:?} and {zh:?} fill differently");
        }
        assert_eq!(fill("revision {} of {}", &[&7, &"x"]), "revision 7 of x");
        assert_eq!(fill("{1} 处的 {0} 个", &[&7, &"x"]), "x 处的 7 个");
        assert_eq!(fill("a {b} c", &[]), "a {b} c");
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
