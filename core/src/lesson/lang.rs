//! The language a lesson is written in ([`Lang`]), which every lesson's writer reads.

/// The language a lesson is written in: the lessons' own Turkish (the default, byte for
/// byte the lesson programs' output), or English.
///
/// Both languages print the same numbers in the same order: every sentence is one
/// `say!` call whose arguments are shared by its two format strings (the compiler
/// rejects a format string that leaves an argument out or asks for one more).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Lang {
    /// Turkish, as the lessons print it (unaccented, as the lesson programs write it).
    #[default]
    Tr,
    /// English: a translation of every header, label and sentence.
    En,
}

impl Lang {
    /// Both languages, the default first.
    pub const ALL: [Lang; 2] = [Lang::Tr, Lang::En];

    /// Returns the language's code on the command line (`tr`, `en`).
    pub const fn name(self) -> &'static str {
        match self {
            Lang::Tr => "tr",
            Lang::En => "en",
        }
    }

    /// Returns the language whose code is `name`, if any.
    pub fn from_name(name: &str) -> Option<Lang> {
        Lang::ALL.into_iter().find(|l| l.name() == name)
    }

    /// Returns `tr` in Turkish and `en` in English.
    pub(super) const fn pick<T: Copy>(self, tr: T, en: T) -> T {
        match self {
            Lang::Tr => tr,
            Lang::En => en,
        }
    }
}
