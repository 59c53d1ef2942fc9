//! What the application does with each type of resource: the one table the file browser,
//! the viewer's open path, the editor and the CLI read to decide what is listed, what
//! opens, what is edited and what is a room (so they cannot disagree).

use std::path::Path;

/// A resource type the application knows by name (in [`TABLE`]'s order).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AssetKind {
    /// CMDL: a model.
    Model,
    /// ANCS: a character set (its first character's model, skin, skeleton and clips).
    Character,
    /// CHAR: an MP3 character (its model, skin, skeleton and clips; `load::character_mp3`).
    Mp3Character,
    /// MREA: an area, shown as a room (its world geometry and light layers).
    Room,
    /// TXTR: a texture.
    Texture,
    /// A whole PAK archive: the browser expands it, opening it opens its main model.
    Pak,
    /// CSKR, CINF, ANIM: read only through the model or character that uses them.
    Skin,
    Skeleton,
    Animation,
    /// MLVL: a world, listed by `tevscope worlds` (its rooms open, not the world itself).
    World,
    /// STRG: a string table (world and room names).
    Strings,
}

/// One row of the table: a kind, its type code, and what the application does with it.
struct Row {
    kind: AssetKind,
    /// The PAK type and file extension (`PAK ` for archives, which have no type code).
    fourcc: [u8; 4],
    /// The viewer opens it as a document.
    opens: bool,
    /// The material editor edits it.
    edits: bool,
}

/// Every kind, in the enum's order (which is also the order messages name them).
const TABLE: [Row; 11] = [
    row(AssetKind::Model, b"CMDL", true, true),
    row(AssetKind::Character, b"ANCS", true, false),
    row(AssetKind::Mp3Character, b"CHAR", true, false),
    row(AssetKind::Room, b"MREA", true, true),
    row(AssetKind::Texture, b"TXTR", true, false),
    row(AssetKind::Pak, b"PAK ", false, false),
    row(AssetKind::Skin, b"CSKR", false, false),
    row(AssetKind::Skeleton, b"CINF", false, false),
    row(AssetKind::Animation, b"ANIM", false, false),
    row(AssetKind::World, b"MLVL", false, false),
    row(AssetKind::Strings, b"STRG", false, false),
];

const fn row(kind: AssetKind, fourcc: &[u8; 4], opens: bool, edits: bool) -> Row {
    Row {
        kind,
        fourcc: *fourcc,
        opens,
        edits,
    }
}

impl AssetKind {
    fn row(self) -> &'static Row {
        &TABLE[self as usize]
    }

    /// The kind of a PAK type or file extension (any case): `CMDL`, `txtr`, `pak`.
    pub fn from_code(code: &str) -> Option<Self> {
        if code.eq_ignore_ascii_case("pak") {
            return Some(Self::Pak);
        }
        let b = code.as_bytes();
        let fourcc: [u8; 4] = b.try_into().ok()?;
        Self::from_fourcc(fourcc)
    }

    /// The kind of a PAK entry's type (any case).
    pub fn from_fourcc(fourcc: [u8; 4]) -> Option<Self> {
        let upper = fourcc.map(|c| c.to_ascii_uppercase());
        TABLE
            .iter()
            .find(|r| r.fourcc == upper && r.kind != Self::Pak)
            .map(|r| r.kind)
    }

    /// The kind a file's extension names (`x.CMDL`, `World.pak`); None for other files.
    pub fn from_path(path: &Path) -> Option<Self> {
        Self::from_code(path.extension()?.to_str()?)
    }

    /// The kind the first bytes tell, for the formats with a magic word.
    pub fn sniff(bytes: &[u8]) -> Option<Self> {
        let magic = u32::from_be_bytes(bytes.get(..4)?.try_into().ok()?);
        match magic {
            crate::formats::cmdl::MAGIC => Some(Self::Model),
            m if m == crate::formats::mrea::MREA_MAGIC => Some(Self::Room),
            crate::formats::mlvl::MAGIC => Some(Self::World),
            crate::formats::strg::MAGIC => Some(Self::Strings),
            _ => None,
        }
    }

    /// `CMDL`, `TXTR`, `PAK` (how listings and messages name it).
    pub fn code(self) -> &'static str {
        match std::str::from_utf8(&self.row().fourcc) {
            Ok(s) => s.trim_end(),
            Err(_) => "?",
        }
    }

    /// The PAK type (None for a whole archive).
    pub fn fourcc(self) -> Option<[u8; 4]> {
        (self != Self::Pak).then_some(self.row().fourcc)
    }

    /// The viewer opens it as a document (a model, character, room or texture).
    pub fn opens(self) -> bool {
        self.row().opens
    }

    /// The file browser lists it: what opens, and archives (which it expands).
    pub fn listed(self) -> bool {
        self.opens() || self == Self::Pak
    }

    /// It opens as a 3D model (with textures and, for characters, skin and clips).
    pub fn is_model(self) -> bool {
        matches!(
            self,
            Self::Model | Self::Character | Self::Mp3Character | Self::Room
        )
    }

    /// The material editor edits it (a character is shown read-only: edit its CMDL).
    pub fn editable(self) -> bool {
        self.row().edits
    }

    /// It is an area's world geometry, walked through rather than turned around.
    pub fn is_room(self) -> bool {
        self == Self::Room
    }

    /// The kinds the viewer opens, in the table's order.
    pub fn openable() -> impl Iterator<Item = Self> {
        TABLE.iter().filter(|r| r.opens).map(|r| r.kind)
    }

    /// `CMDL, ANCS, CHAR, MREA or TXTR`: the types the viewer opens, for messages.
    pub fn openable_list() -> String {
        let codes: Vec<&str> = Self::openable().map(Self::code).collect();
        match codes.split_last() {
            Some((last, [])) => (*last).to_string(),
            Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
            None => String::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_has_its_row_and_codes_round_trip() {
        for (i, r) in TABLE.iter().enumerate() {
            assert_eq!(r.kind as usize, i, "{:?}", r.kind);
            assert_eq!(AssetKind::from_code(r.kind.code()), Some(r.kind));
            assert_eq!(
                AssetKind::from_code(&r.kind.code().to_lowercase()),
                Some(r.kind)
            );
        }
        assert_eq!(AssetKind::from_code("CHAR"), Some(AssetKind::Mp3Character));
        assert_eq!(AssetKind::from_code("SAND"), None);
        assert_eq!(AssetKind::from_code("PAK "), None);
        assert_eq!(AssetKind::from_fourcc(*b"PAK "), None);
        assert_eq!(AssetKind::from_fourcc(*b"mrea"), Some(AssetKind::Room));
    }

    #[test]
    fn rooms_characters_models_and_textures_open_and_list() {
        let opens: Vec<AssetKind> = AssetKind::openable().collect();
        assert_eq!(
            opens,
            [
                AssetKind::Model,
                AssetKind::Character,
                AssetKind::Mp3Character,
                AssetKind::Room,
                AssetKind::Texture
            ]
        );
        assert!(AssetKind::Room.listed() && AssetKind::Room.is_room());
        assert!(AssetKind::Pak.listed() && !AssetKind::Pak.opens());
        assert!(!AssetKind::Skin.listed() && !AssetKind::Animation.opens());
        assert!(AssetKind::Room.editable() && AssetKind::Model.editable());
        assert!(!AssetKind::Character.editable() && !AssetKind::Texture.editable());
        assert!(AssetKind::Character.is_model() && !AssetKind::Texture.is_model());
        assert_eq!(AssetKind::openable_list(), "CMDL, ANCS, CHAR, MREA or TXTR");
        assert!(AssetKind::Mp3Character.is_model() && !AssetKind::Mp3Character.editable());
        assert_eq!(
            AssetKind::from_path(Path::new("/a/x.Mrea")),
            Some(AssetKind::Room)
        );
        assert_eq!(
            AssetKind::from_path(Path::new("World.PAK")),
            Some(AssetKind::Pak)
        );
        assert_eq!(AssetKind::from_path(Path::new("notes.txt")), None);
        assert_eq!(AssetKind::Pak.fourcc(), None);
        assert_eq!(AssetKind::Texture.fourcc(), Some(*b"TXTR"));
    }

    #[test]
    fn magic_tells_models_and_rooms() {
        assert_eq!(
            AssetKind::sniff(&[0xDE, 0xAD, 0xBA, 0xBE, 0]),
            Some(AssetKind::Model)
        );
        assert_eq!(
            AssetKind::sniff(&crate::formats::mrea::MREA_MAGIC.to_be_bytes()),
            Some(AssetKind::Room)
        );
        assert_eq!(
            AssetKind::sniff(&[0xDE, 0xAF, 0xBA, 0xBE]),
            Some(AssetKind::World)
        );
        assert_eq!(
            AssetKind::sniff(&[0x87, 0x65, 0x43, 0x21]),
            Some(AssetKind::Strings)
        );
        assert_eq!(AssetKind::sniff(&[1, 2]), None);
    }
}
