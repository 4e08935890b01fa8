//! The chart's words in Turkish (`capsim plot --lang tr`, the lesson pages in Turkish): every
//! text a chart writes goes through [`say`], which keeps English as it is and puts the
//! lessons' own words in Turkish, with its letters. A text it has no words for stays as it
//! is (a command's name, a number); the playground's tests check that a Turkish lesson
//! page's chart has no English left.

use capsim_core::lesson::Lang;

/// Whole texts and their Turkish (series, axes, marks).
const PHRASES: &[(&str, &str)] = &[
    ("group size", "grup boyutu"),
    ("ready", "hazır"),
    ("required", "gerekli"),
    ("instances", "örnek sayısı"),
    ("round (1 min)", "tur (1 dk)"),
    ("round", "tur"),
    ("backlog", "bekleyen olaylar"),
    ("events not yet applied", "henüz uygulanmamış olaylar"),
    ("requests dropped so far", "şimdiye dek düşürülen istekler"),
    ("tracking dropped", "düşürülen takip istekleri"),
    ("event dropped", "düşürülen olay istekleri"),
    ("an instance waits in a hook", "bir örnek kancada bekliyor"),
    (
        "target ($TargetDedicatedNodes)",
        "hedef ($TargetDedicatedNodes)",
    ),
    (
        "group size (dedicated + spot)",
        "grup boyutu (adanmış + spot)",
    ),
    (
        "dedicated (spot above, to the group size)",
        "adanmış (üstünde spot, grup boyutuna dek)",
    ),
    ("queued after arrivals", "gelişlerden sonra kuyrukta"),
    ("dropped so far", "şimdiye dek düşürülen"),
    (
        "rejected by the breaker so far",
        "şimdiye dek devre kesicinin reddettiği",
    ),
    ("retries waiting", "bekleyen yeniden denemeler"),
    ("runs", "koşum"),
    ("under capacity", "kapasite altı"),
    ("surge", "ani artış"),
    ("instance breaks", "örnek bozulur"),
    ("slowdown", "yavaşlama"),
    ("formula evaluation", "formül değerlendirmesi"),
    (
        "formula evaluation (the schedule restarts at a timed action)",
        "formül değerlendirmesi (zamanlı bir eylemde takvim yeniden başlar)",
    ),
];

/// The lessons' flags and values in `name=value` words (run names, titles, captions).
const WORDS: &[(&str, &str)] = &[
    ("threshold", "eşik"),
    ("cooldown", "soğuma"),
    ("seed", "tohum"),
    ("consumers", "tüketici"),
    ("slots", "yuva"),
    ("shipments", "gönderi"),
    ("split", "bölme"),
    ("mode", "kip"),
    ("rounds", "tur"),
    ("shared", "paylaşımlı"),
    ("healthy", "sağlıklı"),
    ("slowdown", "yavaşlama"),
];

/// Returns `text` in `lang`: as it is in English; in Turkish with the lessons' words
/// translated. A label `RUNS: WHAT` (a run's values of the listed flags, then what the line
/// shows) is translated part by part.
pub fn say(lang: Lang, text: &str) -> String {
    if lang == Lang::En {
        return text.to_string();
    }
    match text.rsplit_once(": ") {
        Some((runs, what)) => format!("{}: {}", values(runs), phrase(what)),
        None => phrase(text),
    }
}

/// A word of `WORDS` in Turkish, or as it is.
fn word(w: &str) -> &str {
    WORDS
        .iter()
        .find(|(en, _)| *en == w)
        .map_or(w, |(_, tr)| tr)
}

/// `name=value` words in Turkish (each name and value), the rest of the text as it is.
fn values(text: &str) -> String {
    text.split(' ')
        .map(|token| match token.split_once('=') {
            Some((k, v)) => {
                let (v, comma) = v.strip_suffix(',').map_or((v, ""), |v| (v, ","));
                format!("{}={}{comma}", word(k), word(v))
            }
            None => token.to_string(),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// A series', axis' or mark's text in Turkish: a whole phrase, a mark with its rounds, or
/// `name=value` words.
fn phrase(text: &str) -> String {
    if let Some((_, tr)) = PHRASES.iter().find(|(en, _)| *en == text) {
        return tr.to_string();
    }
    let inner = |prefix: &str| {
        text.strip_prefix(prefix)
            .and_then(|rest| rest.strip_suffix(')'))
    };
    if let Some(r) = inner("surge (rounds ") {
        if let Some((a, b)) = r.split_once(" to ") {
            return format!("ani artış ({a}. ile {b}. turlar arası)");
        }
    }
    if let Some(list) = inner("instance breaks (round ") {
        return format!("örnek bozulur (tur {list})");
    }
    if let Some(n) = inner("under capacity (") {
        let n = n.trim_end_matches(" rounds").trim_end_matches(" round");
        return format!("kapasite altı ({n} tur)");
    }
    if let Some(n) = inner("slowdown (from round ") {
        return format!("yavaşlama ({n}. turdan)");
    }
    if let Some(n) = inner("formula evaluation (every ") {
        return format!(
            "formül değerlendirmesi (her {})",
            n.replace(" rounds", " turda")
        );
    }
    if let Some(s) = inner("round (1/") {
        return format!("tur (1/{} sn)", s.trim_end_matches(" s"));
    }
    if text.contains('=') {
        return values(text);
    }
    text.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lesson_pages_words_are_turkish() {
        let tr = |t: &str| say(Lang::Tr, t);
        assert_eq!(tr("threshold=2: group size"), "eşik=2: grup boyutu");
        assert_eq!(
            tr("capsim autoscale: threshold=2 cooldown=0 seed=20261001"),
            "capsim autoscale: eşik=2 soğuma=0 tohum=20261001"
        );
        assert_eq!(
            tr("split=shared mode=slowdown, split=24 mode=slowdown: event dropped"),
            "bölme=paylaşımlı kip=yavaşlama, bölme=24 kip=yavaşlama: düşürülen olay istekleri"
        );
        assert_eq!(
            tr("surge (rounds 150 to 189)"),
            "ani artış (150. ile 189. turlar arası)"
        );
        assert_eq!(
            tr("instance breaks (round 40, 95, 170)"),
            "örnek bozulur (tur 40, 95, 170)"
        );
        assert_eq!(tr("under capacity (10 rounds)"), "kapasite altı (10 tur)");
        assert_eq!(tr("under capacity (1 round)"), "kapasite altı (1 tur)");
        assert_eq!(tr("round (1/100 s)"), "tur (1/100 sn)");
        assert_eq!(tr("slowdown (from round 1000)"), "yavaşlama (1000. turdan)");
        assert_eq!(
            tr("formula evaluation (every 15 rounds)"),
            "formül değerlendirmesi (her 15 turda)"
        );
        // English stays; an unknown text stays as it is.
        assert_eq!(say(Lang::En, "group size"), "group size");
        assert_eq!(tr("capsim consumers"), "capsim consumers");
    }
}
