//! CSKR skins (formats.md §6): weight groups that bind runs of a model's positions (and,
//! with the same counts, its normals) to bones.
//!
//! The model's position array is ordered by group: the first `v₀` positions use group 0,
//! the next `v₁` group 1, and so on. A vertex's group is therefore found from its position
//! index ([`Cskr::group_of_index`]). The footers differ per game and are kept verbatim.

use super::{ErrorKind, FormatError, Game, Reader, Result, Writer, cinf::len_u32};

/// One (bone, weight) pair of a group.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BoneWeight {
    pub bone_id: u32,
    pub weight: f32,
}

/// A weight group and how many consecutive positions use it.
#[derive(Debug, Clone, PartialEq)]
pub struct WeightGroup {
    pub weights: Vec<BoneWeight>,
    pub vertex_count: u32,
}

/// An MP1 footer count: `s32 x`; −1 means "the next u32 is the count", otherwise `x` is the
/// count and `x × 3` u32 follow (read and discarded by the game, kept here).
#[derive(Debug, Clone, PartialEq)]
pub struct Mp1Count {
    /// The first word as stored (0xFFFFFFFF or the count).
    pub marker: u32,
    pub count: u32,
    /// The `count × 3` words that follow a non-marker count.
    pub skipped: Vec<u32>,
}

/// The per-game footer, kept verbatim.
#[derive(Debug, Clone, PartialEq)]
pub enum CskrFooter {
    /// Skinned position count and normal count.
    Mp1 {
        positions: Mp1Count,
        normals: Mp1Count,
    },
    /// "Pool → skin index" map (purpose unknown) and a block of unknown bytes.
    Mp2 {
        pool_map: Vec<u16>,
        unknown: Vec<u8>,
    },
    /// MP3 (formats.md §13.4): matrix banks of 10 group indices (s16, −1 = none) that a
    /// surface selects, then one tail blob of unknown meaning.
    Mp3 {
        matrix_banks: Vec<i16>,
        /// The blob after the banks (u32 length + bytes); None when no length fits, in
        /// which case everything after the banks is in [`Cskr::trailing`].
        tail: Option<Vec<u8>>,
    },
}

/// Entries per MP3 matrix bank: one per PNMTXIDX slot (PNMTXIDX / 3 < 10).
pub const BANK_SIZE: usize = 10;

/// A parsed skin.
#[derive(Debug, Clone, PartialEq)]
pub struct Cskr {
    pub game: Game,
    /// MP3 "SKIN" header version, when present.
    pub skin_version: Option<u32>,
    pub groups: Vec<WeightGroup>,
    pub footer: CskrFooter,
    /// Bytes after the footer (padding), kept for byte-exact writing.
    pub trailing: Vec<u8>,
    pub warnings: Vec<String>,
}

const SKIN_MAGIC: u32 = u32::from_be_bytes(*b"SKIN");

impl Cskr {
    /// Parses a CSKR. `game` comes from the container. `None`: a "SKIN" header means MP3;
    /// otherwise MP1 is tried first (the spec gives no rule) and MP2 if the MP1 footer does
    /// not fit.
    pub fn parse(data: &[u8], file: &str, game: Option<Game>) -> Result<Cskr> {
        let has_skin = data.len() >= 4 && data[..4] == *b"SKIN";
        match game {
            Some(g) => Self::parse_as(data, file, g),
            None if has_skin => Self::parse_as(data, file, Game::Mp3),
            None => Self::parse_as(data, file, Game::Mp1)
                .or_else(|e1| Self::parse_as(data, file, Game::Mp2).map_err(|_| e1)),
        }
    }

    fn parse_as(data: &[u8], file: &str, game: Game) -> Result<Cskr> {
        let mut r = Reader::new(data, file);
        let mut warnings = Vec::new();
        let skin_version = if game == Game::Mp3 {
            r.expect_u32("magic", SKIN_MAGIC)?;
            Some(r.u32("skin_version")?)
        } else {
            None
        };
        // A group is at least its weight count and vertex count.
        let n = r.count("group_count", 8)?;
        let mut groups = Vec::with_capacity(n);
        for g in 0..n {
            let field = format!("groups[{g}].weights");
            let at = r.pos();
            let wn = r.count(&field, 8)?;
            let mut weights = Vec::with_capacity(wn);
            let mut sum = 0.0f32;
            for i in 0..wn {
                let bone_id = r.u32(&format!("groups[{g}].weights[{i}].bone_id"))?;
                let wpos = r.pos();
                let weight = r.f32(&format!("groups[{g}].weights[{i}].weight"))?;
                if !weight.is_finite() {
                    return Err(r.err_at(
                        &format!("groups[{g}].weights[{i}].weight"),
                        wpos,
                        ErrorKind::Invalid(format!("weight {weight} is not finite")),
                    ));
                }
                sum += weight;
                weights.push(BoneWeight { bone_id, weight });
            }
            if wn > 3 {
                warnings.push(format!(
                    "groups[{g}] at byte offset {at:#x}: {wn} weights (the game uses the first 3)"
                ));
            }
            if wn > 0 && (sum - 1.0).abs() > 1e-3 {
                warnings.push(format!(
                    "groups[{g}] at byte offset {at:#x}: weights sum to {sum}, not 1"
                ));
            }
            let vertex_count = r.u32(&format!("groups[{g}].vertex_count"))?;
            groups.push(WeightGroup {
                weights,
                vertex_count,
            });
        }
        let footer = if game == Game::Mp1 {
            let positions = read_mp1_count(&mut r, "footer.position_count")?;
            let normals = read_mp1_count(&mut r, "footer.normal_count")?;
            CskrFooter::Mp1 { positions, normals }
        } else if game == Game::Mp3 {
            return read_mp3_tail(r, skin_version, groups, warnings);
        } else {
            let n = r.count("footer.pool_map_count", 2)?;
            let pool_map = (0..n)
                .map(|_| r.u16("footer.pool_map"))
                .collect::<Result<Vec<_>>>()?;
            let n = r.count("footer.unknown_length", 1)?;
            let unknown = r.bytes("footer.unknown", n)?.to_vec();
            CskrFooter::Mp2 { pool_map, unknown }
        };
        let trailing = r.rest().to_vec();
        if trailing.iter().any(|&b| b != 0xFF && b != 0) || trailing.len() >= 64 {
            // Unknown data after the footer: most likely the wrong game layout.
            return Err(r.invalid(
                "trailing",
                format!(
                    "{} bytes after the {game:?} footer are not padding",
                    trailing.len()
                ),
            ));
        }
        let mut cskr = Cskr {
            game,
            skin_version,
            groups,
            footer,
            trailing,
            warnings,
        };
        let total = cskr.total_vertex_count();
        if let CskrFooter::Mp1 { positions, .. } = &cskr.footer
            && u64::from(positions.count) != total
        {
            let msg = format!(
                "footer: skinned position count {} differs from the groups' total {total}",
                positions.count
            );
            cskr.warnings.push(msg);
        }
        Ok(cskr)
    }

    /// Σ vertex counts of all groups.
    pub fn total_vertex_count(&self) -> u64 {
        self.groups.iter().map(|g| u64::from(g.vertex_count)).sum()
    }

    /// The group that position (or normal) index `index` belongs to, or None beyond the
    /// last group.
    pub fn group_of_index(&self, index: u32) -> Option<usize> {
        let mut end = 0u64;
        for (g, group) in self.groups.iter().enumerate() {
            end += u64::from(group.vertex_count);
            if u64::from(index) < end {
                return Some(g);
            }
        }
        None
    }

    /// Group index per position index `0..count` (None beyond the last group).
    pub fn groups_by_index(&self, count: usize) -> Vec<Option<usize>> {
        let mut out = Vec::with_capacity(count);
        'groups: for (g, group) in self.groups.iter().enumerate() {
            for _ in 0..group.vertex_count {
                if out.len() == count {
                    break 'groups;
                }
                out.push(Some(g));
            }
        }
        out.resize(count, None);
        out
    }

    /// [MP3] The matrix banks (10 group indices each, −1 = none); empty for MP1/MP2.
    pub fn matrix_banks(&self) -> Vec<&[i16]> {
        match &self.footer {
            CskrFooter::Mp3 { matrix_banks, .. } => matrix_banks.chunks(BANK_SIZE).collect(),
            _ => Vec::new(),
        }
    }

    /// [MP3] The weight group a vertex takes (formats.md §13.4): bank `bank` (the surface's
    /// index), slot PNMTXIDX / 3. `Err` says why there is none (the caller binds the root).
    pub fn bank_group(
        &self,
        bank: i16,
        pnmtxidx: Option<u8>,
    ) -> std::result::Result<usize, String> {
        let banks = self.matrix_banks();
        let b = usize::try_from(bank).map_err(|_| format!("bank index {bank} is negative"))?;
        let entries = banks
            .get(b)
            .ok_or_else(|| format!("bank index {b} ≥ bank count {}", banks.len()))?;
        let m = pnmtxidx.ok_or("the vertex has no PNMTXIDX")?;
        let slot = usize::from(m / 3);
        let g = *entries.get(slot).ok_or_else(|| {
            format!(
                "PNMTXIDX {m} selects slot {slot}, the bank has {}",
                entries.len()
            )
        })?;
        let g =
            usize::try_from(g).map_err(|_| format!("bank {b} slot {slot} is unweighted ({g})"))?;
        if g < self.groups.len() {
            Ok(g)
        } else {
            Err(format!(
                "bank {b} slot {slot} names group {g}, the skin has {}",
                self.groups.len()
            ))
        }
    }

    /// Checks every bone ID against a skeleton; an error names the group.
    pub fn check_bones(&self, has_bone: impl Fn(u32) -> bool) -> std::result::Result<(), String> {
        for (g, group) in self.groups.iter().enumerate() {
            for w in &group.weights {
                if !has_bone(w.bone_id) {
                    return Err(format!(
                        "skin group {g} weights bone {}, which is not in the skeleton",
                        w.bone_id
                    ));
                }
            }
        }
        Ok(())
    }

    /// Writes the skin back in its game's layout.
    pub fn write(&self) -> Result<Vec<u8>> {
        let mut w = Writer::new();
        if let Some(v) = self.skin_version {
            w.u32(SKIN_MAGIC);
            w.u32(v);
        }
        w.u32(len_u32(self.groups.len(), "group_count")?);
        for g in &self.groups {
            w.u32(len_u32(g.weights.len(), "weight_count")?);
            for bw in &g.weights {
                w.u32(bw.bone_id);
                w.f32(bw.weight);
            }
            w.u32(g.vertex_count);
        }
        match &self.footer {
            CskrFooter::Mp1 { positions, normals } => {
                for c in [positions, normals] {
                    if c.marker == u32::MAX {
                        w.u32(c.marker);
                        w.u32(c.count);
                    } else {
                        if c.skipped.len() as u64 != u64::from(c.marker) * 3 {
                            return Err(FormatError::new(
                                "CSKR writer",
                                "footer",
                                0,
                                ErrorKind::Invalid(format!(
                                    "count {} needs {} skipped words, {} given",
                                    c.marker,
                                    u64::from(c.marker) * 3,
                                    c.skipped.len()
                                )),
                            ));
                        }
                        w.u32(c.marker);
                        c.skipped.iter().for_each(|&x| w.u32(x));
                    }
                }
            }
            CskrFooter::Mp2 { pool_map, unknown } => {
                w.u32(len_u32(pool_map.len(), "pool_map")?);
                pool_map.iter().for_each(|&x| w.u16(x));
                w.u32(len_u32(unknown.len(), "unknown")?);
                w.bytes(unknown);
            }
            CskrFooter::Mp3 { matrix_banks, tail } => {
                w.u32(len_u32(matrix_banks.len(), "matrix_bank_entry_count")?);
                matrix_banks.iter().for_each(|&x| w.u16(x as u16));
                if let Some(tail) = tail {
                    w.u32(len_u32(tail.len(), "tail_blob_size")?);
                    w.bytes(tail);
                }
            }
        }
        w.bytes(&self.trailing);
        Ok(w.into_inner())
    }
}

/// The MP3 part after the groups: the bank table (an error when it does not fit), then the
/// tail, which never fails the file (§13.4: readers disagree on it): one blob when its
/// length fits, and whatever follows kept opaque in `trailing`.
fn read_mp3_tail(
    mut r: Reader<'_>,
    skin_version: Option<u32>,
    groups: Vec<WeightGroup>,
    mut warnings: Vec<String>,
) -> Result<Cskr> {
    let banks_at = r.abs_pos();
    let n = r.count("matrix_bank_entry_count", 2)?;
    let matrix_banks = (0..n)
        .map(|_| r.i16("matrix_banks"))
        .collect::<Result<Vec<_>>>()?;
    if !n.is_multiple_of(BANK_SIZE) {
        warnings.push(format!(
            "matrix_bank_entry_count at byte offset {banks_at:#x}: {n} entries is not a multiple of {BANK_SIZE}; the last bank is partial"
        ));
    }
    let tail_at = r.pos();
    let tail = match r.count("tail_blob_size", 1) {
        Ok(n) => Some(r.bytes("tail_blob", n)?.to_vec()),
        Err(e) => {
            warnings.push(format!(
                "tail blob at byte offset {:#x}: {}; the bytes after the banks are kept opaque",
                e.offset, e.kind
            ));
            r.seek("tail_blob", tail_at)?;
            None
        }
    };
    let trailing = r.rest().to_vec();
    if tail.is_some() && trailing.iter().any(|&b| b != 0xFF && b != 0) {
        warnings.push(format!(
            "{} bytes after the tail blob at byte offset {:#x} (another reader expects 5 blobs); kept opaque",
            trailing.len(),
            r.abs_pos()
        ));
    }
    Ok(Cskr {
        game: Game::Mp3,
        skin_version,
        groups,
        footer: CskrFooter::Mp3 { matrix_banks, tail },
        trailing,
        warnings,
    })
}

fn read_mp1_count(r: &mut Reader<'_>, field: &str) -> Result<Mp1Count> {
    let marker = r.u32(field)?;
    if marker == u32::MAX {
        let count = r.u32(field)?;
        Ok(Mp1Count {
            marker,
            count,
            skipped: Vec::new(),
        })
    } else {
        let n = r.check_count(field, u64::from(marker) * 3, 4)?;
        let skipped = r.u32_vec(field, n)?;
        Ok(Mp1Count {
            marker,
            count: marker,
            skipped,
        })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn mp2_skin() -> Vec<u8> {
        let mut w = Writer::new();
        w.u32(1);
        w.u32(2);
        w.u32(0);
        w.f32(0.5);
        w.u32(1);
        w.f32(0.5);
        w.u32(3);
        w.u32(2);
        w.u16(7);
        w.u16(9);
        w.u32(3);
        w.bytes(&[1, 2, 3]);
        w.into_inner()
    }

    #[test]
    fn mp2_footer_detected_and_round_trips() {
        let data = mp2_skin();
        let s = Cskr::parse(&data, "t", None).unwrap();
        assert_eq!(s.game, Game::Mp2);
        assert_eq!(
            s.footer,
            CskrFooter::Mp2 {
                pool_map: vec![7, 9],
                unknown: vec![1, 2, 3]
            }
        );
        assert_eq!(s.write().unwrap(), data);
    }

    #[test]
    fn mp3_skin_header() {
        let mut data = b"SKIN".to_vec();
        data.extend_from_slice(&5u32.to_be_bytes());
        data.extend(mp2_skin());
        let s = Cskr::parse(&data, "t", None).unwrap();
        assert_eq!(s.game, Game::Mp3);
        assert_eq!(s.skin_version, Some(5));
        assert_eq!(s.write().unwrap(), data);
    }

    #[test]
    fn mp1_skipped_counts_are_kept() {
        let mut w = Writer::new();
        w.u32(1);
        w.u32(1);
        w.u32(3);
        w.f32(1.0);
        w.u32(2);
        w.u32(1); // one position, followed by 3 discarded words
        w.u32(10);
        w.u32(11);
        w.u32(12);
        w.u32(u32::MAX);
        w.u32(2);
        let data = w.into_inner();
        let s = Cskr::parse(&data, "t", Some(Game::Mp1)).unwrap();
        let CskrFooter::Mp1 { positions, normals } = &s.footer else {
            panic!("not MP1")
        };
        assert_eq!(positions.skipped, vec![10, 11, 12]);
        assert_eq!(normals.count, 2);
        // Footer position count (1) differs from the groups' total (2).
        assert_eq!(s.warnings.len(), 1);
        assert_eq!(s.write().unwrap(), data);
        assert_eq!(s.group_of_index(1), Some(0));
        assert_eq!(s.group_of_index(2), None);
        assert_eq!(s.groups_by_index(3), vec![Some(0), Some(0), None]);
    }

    #[test]
    fn non_finite_weights_are_rejected() {
        let mut data = mp2_skin();
        data[12..16].copy_from_slice(&f32::NAN.to_be_bytes());
        let e = Cskr::parse(&data, "t", Some(Game::Mp2)).unwrap_err();
        assert_eq!(e.offset, 12);
    }
}
