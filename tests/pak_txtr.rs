//! PAK and TXTR against the conformance fixtures: every value their JSONs list, writer
//! round trips, encoders, hostile input, and the CLI functions built on them.
#![allow(clippy::unwrap_used)]

use serde_json::Value;
use sha2::{Digest, Sha256};
use tevscope::formats::compression::compress_lzo;
use tevscope::formats::pak::{Compression, Pak, PakBuilder};
use tevscope::formats::txtr::{EncodeOptions, TexFormat, Txtr};
use tevscope::formats::{ErrorKind, FormatError, Game};
use tevscope::gx::texel::{cmpr_palette, rgb5a3};
use tevscope::testing::{conformance_dir, conformance_file, torture};

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn hex(v: &Value) -> u64 {
    let s = v.as_str().expect("hex string");
    u64::from_str_radix(s.trim_start_matches("0x"), 16).expect("hex")
}

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not an integer: {v}"))
}

fn rgba(v: &Value) -> [u8; 4] {
    let a = v.as_array().expect("rgba array");
    std::array::from_fn(|i| u(&a[i]) as u8)
}

const PAKS: [&str; 3] = ["mp1_fixtures.pak", "mp2_fixtures.pak", "tev_cases.pak"];

const TXTRS: [&str; 8] = [
    "mp1_rgb5a3_8x8_2mips.TXTR",
    "mp1_cmpr_8x8.TXTR",
    "mp1_i8_16x8.TXTR",
    "mp1_c4_8x8.TXTR",
    "0x7EC00001.TXTR",
    "0x7EC00002.TXTR",
    "0x7EC00003.TXTR",
    "0x7EC00004.TXTR",
];

const PWE_TXTRS: [&str; 2] = ["pwe/Checkerboard.TXTR", "pwe/LightSpot.TXTR"];

// ------------------------------------------------------------------------------------------
// PAK

#[test]
fn pak_tables_match_the_conformance_json() {
    let Some(dir) = conformance_dir() else { return };
    for name in PAKS {
        let (data, json) = conformance_file(name).unwrap();
        assert_eq!(data.len() as u64, u(&json["size"]));
        let pak = Pak::parse(&data, name).unwrap();
        let game = match json["game"].as_str().unwrap() {
            "MP1" => Game::Mp1,
            "MP2" => Game::Mp2,
            g => panic!("{g}"),
        };
        assert_eq!(pak.game, game, "{name}");
        assert_eq!(u(&json["version_major"]), 3);
        assert_eq!(u(&json["version_minor"]), 5);
        assert_eq!(u64::from(pak.unused), u(&json["unused"]));
        assert_eq!(pak.table_end, u(&json["table_end"]), "{name}");

        let named = json["named_resources"].as_array().unwrap();
        assert_eq!(pak.named().len(), named.len());
        for (n, j) in pak.named().iter().zip(named) {
            assert_eq!(&n.fourcc, j["type"].as_str().unwrap().as_bytes());
            assert_eq!(n.id, hex(&j["id"]));
            assert_eq!(n.name, j["name"].as_str().unwrap());
            // The name resolves to its resource.
            assert_eq!(pak.find_by_name(&n.name).unwrap().id, n.id);
        }

        let resources = json["resources"].as_array().unwrap();
        assert_eq!(pak.entries().len() as u64, u(&json["resource_count"]));
        for (e, j) in pak.entries().iter().zip(resources) {
            let what = format!("{name} #{}", e.index);
            assert_eq!(e.index as u64, u(&j["index"]), "{what}");
            assert_eq!(u64::from(e.flag), u(&j["compressed"]), "{what}");
            assert_eq!(&e.fourcc, j["type"].as_str().unwrap().as_bytes(), "{what}");
            assert_eq!(e.id, hex(&j["id"]), "{what}");
            assert_eq!(u64::from(e.size), u(&j["size"]), "{what}");
            assert_eq!(e.data_offset, u(&j["offset"]), "{what}");
            assert_eq!(pak.find_by_id(e.id).unwrap().index, e.index);

            let out = pak.read(&data, e).unwrap();
            let size = u(&j["decompressed_size"]) as usize;
            let info = pak.payload_info(&data, e).unwrap();
            if e.compressed() {
                assert_eq!(out.len(), size, "{what}");
                assert_eq!(
                    info.declared_size,
                    Some(u(&j["stored_decompressed_size_field"]))
                );
                match j["compression"].as_str().unwrap() {
                    "zlib" => {
                        assert_eq!(info.compression, Some(Compression::Zlib));
                        let h = j["zlib_header_bytes"].as_array().unwrap();
                        assert_eq!(info.zlib_header, Some([u(&h[0]) as u8, u(&h[1]) as u8]));
                    }
                    "lzo1x segments" => {
                        assert_eq!(info.compression, Some(Compression::LzoSegments));
                        let lengths: Vec<i16> = j["lzo_segment_lengths"]
                            .as_array()
                            .unwrap()
                            .iter()
                            .map(|v| v.as_i64().unwrap() as i16)
                            .collect();
                        assert_eq!(info.lzo_segments, lengths, "{what}");
                    }
                    c => panic!("{c}"),
                }
            } else {
                // Raw entries come back with their 0xFF padding.
                assert_eq!(out.len(), e.size as usize);
                assert!(out[size..].iter().all(|&b| b == 0xFF), "{what}");
                assert_eq!(info.compression, None);
            }
            assert_eq!(
                sha256_hex(&out[..size]),
                j["decompressed_sha256"].as_str().unwrap(),
                "{what}"
            );
            let loose = std::fs::read(dir.join(j["source_file"].as_str().unwrap())).unwrap();
            assert_eq!(&out[..size], &loose[..], "{what}");
        }
    }
}

#[test]
fn pak_rebuilds_byte_for_byte() {
    let Some(dir) = conformance_dir() else { return };
    for name in PAKS {
        let (data, json) = conformance_file(name).unwrap();
        let pak = Pak::parse(&data, name).unwrap();
        // From the stored bytes: the identity.
        assert_eq!(
            pak.to_builder(&data).unwrap().build().unwrap(),
            data,
            "{name}"
        );

        // From the loose files, compressing where the fixture does: the layout is the
        // same; the LZO encoder (lzokay) reproduces the fixture's bytes exactly, zlib
        // encoders differ between libraries, so those are compared by content.
        let mut b = PakBuilder::new(pak.game);
        for n in pak.named() {
            b.add_name(n.fourcc, n.id, &n.name);
        }
        for (e, j) in pak
            .entries()
            .iter()
            .zip(json["resources"].as_array().unwrap())
        {
            let loose = std::fs::read(dir.join(j["source_file"].as_str().unwrap())).unwrap();
            b.add(e.fourcc, e.id, &loose, e.compressed());
        }
        let rebuilt = b.build().unwrap();
        let again = Pak::parse(&rebuilt, "rebuilt").unwrap();
        assert_eq!(again.game, pak.game);
        assert_eq!(again.named(), pak.named());
        for (a, e) in again.entries().iter().zip(pak.entries()) {
            assert_eq!((a.flag, a.fourcc, a.id), (e.flag, e.fourcc, e.id));
            let (x, y) = (
                again.read(&rebuilt, a).unwrap(),
                pak.read(&data, e).unwrap(),
            );
            assert_eq!(x, y, "{name} #{}", e.index);
        }
        if pak.game == Game::Mp2 {
            assert_eq!(rebuilt, data, "{name}: LZO rebuild differs");
        }
    }
}

#[test]
fn mp2_lzo_encoder_matches_the_fixture_payload() {
    let Some(dir) = conformance_dir() else { return };
    let (data, _) = conformance_file("mp2_fixtures.pak").unwrap();
    let pak = Pak::parse(&data, "mp2").unwrap();
    let e = pak.find(0xC000_0001, Some(*b"CMDL")).unwrap();
    let loose = std::fs::read(dir.join("mp1_cube_skinned.CMDL")).unwrap();
    let payload = compress_lzo(&loose);
    assert_eq!(
        &pak.stored(&data, e).unwrap()[..payload.len()],
        &payload[..]
    );
}

#[test]
fn pak_torture_never_panics_and_rejects_truncation() {
    for name in PAKS {
        let Some((data, _)) = conformance_file(name) else {
            return;
        };
        let mut messages = Vec::new();
        let rejected = torture(&data, 400, |d| {
            let result = (|| {
                let pak = Pak::parse(d, name)?;
                for e in pak.entries() {
                    pak.payload_info(d, e)?;
                    pak.read(d, e)?;
                }
                Ok::<_, FormatError>(())
            })();
            if let Err(e) = &result {
                messages.push(e.clone());
            }
            result
        });
        // Every entry must lie inside the file, so every truncation fails.
        assert_eq!(rejected, data.len(), "{name}");
        for e in &messages {
            assert!(e.file.starts_with(name), "{e}");
            assert!(!e.field.is_empty(), "{e}");
            assert!(e.offset <= data.len() as u64 + 8, "{e}");
        }
        // Some errors come from inside resources, labelled with the member.
        assert!(
            messages
                .iter()
                .any(|e| e.file.starts_with(&format!("{name}:0x"))),
            "{name}: no member-level error seen"
        );
    }
}

#[test]
fn pak_with_huge_declared_size_is_refused_without_allocating() {
    let Some((mut data, _)) = conformance_file("mp1_fixtures.pak") else {
        return;
    };
    // The CMDL (entry 6) is zlib-compressed at 0x4E0; claim 4 GiB.
    data[0x4E0..0x4E4].copy_from_slice(&0xFFFF_FFF0u32.to_be_bytes());
    let pak = Pak::parse(&data, "mp1_fixtures.pak").unwrap();
    let e = &pak.entries()[6];
    let err = pak.read(&data, e).unwrap_err();
    assert_eq!(err.file, "mp1_fixtures.pak:0xC0000001.CMDL");
    assert_eq!((err.field.as_str(), err.offset), ("decompressed_size", 0));
    assert!(matches!(err.kind, ErrorKind::OutOfRange { .. }));
    // A declared size under the cap but not matching the stream is a size error.
    data[0x4E0..0x4E4].copy_from_slice(&(100u32 << 20).to_be_bytes());
    let err = pak.read(&data, e).unwrap_err();
    assert!(err.to_string().contains("declares 104857600"), "{err}");
}

#[test]
fn mp2_segment_overrun_is_reported() {
    let Some((mut data, _)) = conformance_file("mp2_fixtures.pak") else {
        return;
    };
    // CMDL at 0x140: u32 size, then s16 segment length 539; make it run past the entry.
    data[0x144..0x146].copy_from_slice(&0x0400i16.to_be_bytes());
    let pak = Pak::parse(&data, "mp2_fixtures.pak").unwrap();
    let err = pak.read(&data, &pak.entries()[1]).unwrap_err();
    assert_eq!(err.file, "mp2_fixtures.pak:0xC0000001.CMDL");
    assert_eq!((err.field.as_str(), err.offset), ("lzo_segment[0]", 4));
    assert!(matches!(err.kind, ErrorKind::Truncated { .. }));
}

// ------------------------------------------------------------------------------------------
// TXTR

fn check_header(t: &Txtr, json: &Value) {
    let h = &json["header"];
    assert_eq!(u64::from(t.format.id()), u(&h["format"]));
    assert_eq!(t.format.name(), h["format_name"].as_str().unwrap());
    assert_eq!(u64::from(t.width), u(&h["width"]));
    assert_eq!(u64::from(t.height), u(&h["height"]));
    assert_eq!(u64::from(t.mip_count), u(&h["mipmap_count"]));
    if !json["image_data_size"].is_null() {
        assert_eq!(
            (t.header_len() - 12 + t.data.len()) as u64,
            u(&json["image_data_size"])
        );
    }
}

#[test]
fn txtr_rgb5a3_with_mips() {
    let Some((data, json)) = conformance_file("mp1_rgb5a3_8x8_2mips.TXTR") else {
        return;
    };
    let t = Txtr::parse(&data, "rgb5a3").unwrap();
    check_header(&t, &json);
    let mips = t.mips();
    for (k, j) in json["mips"].as_array().unwrap().iter().enumerate() {
        let m = mips[k];
        assert_eq!(
            (u64::from(m.width), u64::from(m.height)),
            (u(&j["width"]), u(&j["height"]))
        );
        assert_eq!(m.offset as u64, u(&j["offset_in_image_data"]));
        assert_eq!(m.byte_size as u64, u(&j["byte_size"]));
        let img = t.decode_level(k as u32).unwrap();
        let raw = j["texels_raw_u16_row_major"].as_array().unwrap();
        let expected = j["texels_rgba8_gx_row_major"].as_array().unwrap();
        for y in 0..m.height {
            for x in 0..m.width {
                let i = (y * m.width + x) as usize;
                assert_eq!(img.pixel(x, y), rgba(&expected[i]), "mip {k} ({x},{y})");
                assert_eq!(rgb5a3(u(&raw[i]) as u16), rgba(&expected[i]));
            }
        }
    }
    for s in json["samples"].as_array().unwrap() {
        let img = t.decode_level(u(&s["mip"]) as u32).unwrap();
        assert_eq!(
            img.pixel(u(&s["x"]) as u32, u(&s["y"]) as u32),
            rgba(&s["rgba8_gx"])
        );
    }
}

#[test]
fn txtr_cmpr_uses_gx_blending() {
    let Some((data, json)) = conformance_file("mp1_cmpr_8x8.TXTR") else {
        return;
    };
    let t = Txtr::parse(&data, "cmpr").unwrap();
    check_header(&t, &json);
    let block = t.level_bytes(0).unwrap();
    for sb in json["subblocks"].as_array().unwrap() {
        let o = u(&sb["order"]) as usize * 8;
        let c0 = u16::from_be_bytes([block[o], block[o + 1]]);
        let c1 = u16::from_be_bytes([block[o + 2], block[o + 3]]);
        assert_eq!(u64::from(c0), u(&sb["c0"]));
        assert_eq!(u64::from(c1), u(&sb["c1"]));
        assert_eq!(sb["mode"].as_str().unwrap() == "4-color", c0 > c1);
        for (row, j) in sb["index_rows"].as_array().unwrap().iter().enumerate() {
            for (col, idx) in j.as_array().unwrap().iter().enumerate() {
                assert_eq!(u64::from((block[o + 4 + row] >> (6 - 2 * col)) & 3), u(idx));
            }
        }
    }
    let img = t.decode_level(0).unwrap();
    for tex in json["texels"].as_array().unwrap() {
        let (x, y) = (u(&tex["x"]) as u32, u(&tex["y"]) as u32);
        let got = img.pixel(x, y);
        let reference = rgba(&tex["rgba8_ref"]);
        let index = u(&tex["index"]) as usize;
        let (c0, c1) = (u(&tex["c0"]) as u16, u(&tex["c1"]) as u16);
        // Exactly the spec's palette (3/8–5/8, transparent average).
        assert_eq!(got, cmpr_palette(c0, c1)[index]);
        assert_eq!(got[3], reference[3], "alpha at ({x},{y})");
        let transparent = c0 <= c1 && index == 3;
        if index < 2 {
            assert_eq!(got, reference, "endpoint at ({x},{y})");
        } else if !transparent {
            // The JSON blends 1/3–2/3; the spec (and GX) 3/8–5/8. The two differ by
            // |c0 − c1| / 24 per channel (11 for 0 → 255, more than the README's ±8),
            // plus 1 for rounding.
            let (p0, p1) = (cmpr_palette(c0, c1)[0], cmpr_palette(c0, c1)[1]);
            for c in 0..3 {
                let tolerance = p0[c].abs_diff(p1[c]) / 24 + 1;
                assert!(
                    got[c].abs_diff(reference[c]) <= tolerance,
                    "({x},{y}) {got:?} vs {reference:?}"
                );
            }
        }
    }
    // The 3/8–5/8 weights, written out independently for sub-block 0 (red → blue).
    assert_eq!(cmpr_palette(0xF800, 0x001F)[2], [159, 0, 95, 255]);
}

#[test]
fn txtr_i8_alpha_is_intensity() {
    let Some((data, json)) = conformance_file("mp1_i8_16x8.TXTR") else {
        return;
    };
    let t = Txtr::parse(&data, "i8").unwrap();
    check_header(&t, &json);
    let img = t.decode_level(0).unwrap();
    for (i, v) in json["texels_intensity_row_major"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
    {
        let v = u(v) as u8;
        assert_eq!(img.pixel(i as u32 % 16, i as u32 / 16), [v; 4]);
    }
    for s in json["samples"].as_array().unwrap() {
        assert_eq!(
            img.pixel(u(&s["x"]) as u32, u(&s["y"]) as u32),
            rgba(&s["rgba8_gx"])
        );
    }
}

#[test]
fn txtr_c4_palette() {
    let Some((data, json)) = conformance_file("mp1_c4_8x8.TXTR") else {
        return;
    };
    let t = Txtr::parse(&data, "c4").unwrap();
    check_header(&t, &json);
    let p = t.palette.as_ref().unwrap();
    let jp = &json["palette"];
    assert_eq!(u64::from(p.format.id()), u(&jp["format"]));
    assert_eq!(p.format.name(), jp["format_name"].as_str().unwrap());
    assert_eq!(
        (u64::from(p.width), u64::from(p.height)),
        (u(&jp["width"]), u(&jp["height"]))
    );
    let entries: Vec<u16> = jp["entries_raw_u16"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| u(v) as u16)
        .collect();
    assert_eq!(p.entries, entries);
    assert_eq!(
        (t.header_len() - 12) as u64,
        u(&json["texel_data_offset_in_image_data"])
    );
    let img = t.decode_level(0).unwrap();
    let pal = t.palette_rgba();
    for (i, idx) in json["texels_index_row_major"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
    {
        assert_eq!(img.pixel(i as u32 % 8, i as u32 / 8), pal[u(idx) as usize]);
    }
    for s in json["samples"].as_array().unwrap() {
        assert_eq!(
            img.pixel(u(&s["x"]) as u32, u(&s["y"]) as u32),
            rgba(&s["rgba8_gx"])
        );
        assert_eq!(pal[u(&s["index"]) as usize], rgba(&s["rgba8_gx"]));
    }
}

#[test]
fn txtr_solid_rgba8_tev_textures() {
    for n in 1..=4 {
        let name = format!("0x7EC0000{n}.TXTR");
        let Some((data, json)) = conformance_file(&name) else {
            return;
        };
        let t = Txtr::parse(&data, &name).unwrap();
        check_header(&t, &json);
        let img = t.decode_level(0).unwrap();
        for (i, px) in json["texels_rgba8_row_major"]
            .as_array()
            .unwrap()
            .iter()
            .enumerate()
        {
            assert_eq!(img.pixel(i as u32 % 4, i as u32 / 4), rgba(px), "{name}");
        }
        assert_eq!(img.pixel(0, 0), rgba(&json["solid_rgba8"]));
    }
}

#[test]
fn txtr_pwe_files_decode_every_level() {
    for name in PWE_TXTRS {
        let Some((data, json)) = conformance_file(name) else {
            return;
        };
        let t = Txtr::parse(&data, name).unwrap();
        assert_eq!(u64::from(t.format.id()), u(&json["gx_format"]));
        assert_eq!(u64::from(t.width), u(&json["width"]));
        assert_eq!(u64::from(t.height), u(&json["height"]));
        assert_eq!(u64::from(t.mip_count), u(&json["mip_count"]));
        assert_eq!(t.complete_levels(), t.mip_count);
        let (levels, err) = t.decode_complete_levels();
        assert!(err.is_none());
        for (k, img) in levels.iter().enumerate() {
            assert_eq!(img.width, (u32::from(t.width) >> k).max(1));
            assert_eq!(img.height, (u32::from(t.height) >> k).max(1));
        }
        // Re-encoding the decoded base level stays close (CMPR → CMPR).
        let base = &levels[0];
        let again = Txtr::encode(
            base,
            t.format,
            &EncodeOptions {
                mip_count: Some(1),
                ..Default::default()
            },
        )
        .unwrap()
        .decode_level(0)
        .unwrap();
        let sq: f64 = again
            .pixels
            .iter()
            .zip(&base.pixels)
            .map(|(&a, &b)| (f64::from(a) - f64::from(b)).powi(2))
            .sum();
        let rms = (sq / base.pixels.len() as f64).sqrt();
        assert!(rms < 3.0, "{name}: re-encode rms {rms}");
    }
}

#[test]
fn txtr_write_round_trips_byte_for_byte() {
    for name in TXTRS.iter().chain(&PWE_TXTRS) {
        let Some((data, _)) = conformance_file(name) else {
            return;
        };
        let t = Txtr::parse(&data, name).unwrap();
        assert_eq!(t.to_bytes(), data, "{name}");
    }
    // Also TXTRs taken out of a PAK, with their 0xFF padding.
    let Some((data, _)) = conformance_file("mp1_fixtures.pak") else {
        return;
    };
    let pak = Pak::parse(&data, "mp1").unwrap();
    for e in pak.entries().iter().filter(|e| &e.fourcc == b"TXTR") {
        let bytes = pak.read(&data, e).unwrap();
        let t = Txtr::parse(&bytes, "member").unwrap();
        assert_eq!(t.to_bytes(), bytes);
        assert!(t.decode_level(0).is_ok());
    }
}

#[test]
fn txtr_torture_never_panics() {
    for name in TXTRS.iter().chain(&PWE_TXTRS) {
        let Some((data, _)) = conformance_file(name) else {
            return;
        };
        let t = Txtr::parse(&data, name).unwrap();
        let base_end = t.header_len() + t.mips()[0].byte_size;
        let small = data.len() < 4096;
        let mut errors = Vec::new();
        let rejected = torture(&data, if small { 500 } else { 40 }, |d| {
            let r = Txtr::parse(d, name).map(|t| {
                if small {
                    let _ = t.decode_complete_levels();
                } else {
                    let _ = t.decode_level(t.complete_levels() - 1);
                }
            });
            if let Err(e) = &r {
                errors.push(e.clone());
            }
            r
        });
        // Every cut before the end of level 0 is an error; cuts inside later levels are not.
        assert_eq!(rejected, base_end, "{name}");
        for e in errors {
            assert_eq!(e.file, *name);
            assert!(!e.field.is_empty());
            assert!(e.offset < data.len() as u64, "{e}");
        }
    }
}

#[test]
fn txtr_encoders_round_trip_every_format() {
    // A picture with a few colours so palette formats are exact, then every format
    // encoded with a full mip chain, written, parsed and decoded.
    let colours = [
        [255, 0, 0, 255],
        [0, 255, 0, 255],
        [0, 0, 255, 255],
        [255, 255, 255, 255],
    ];
    let img =
        tevscope::image::RgbaImage::from_fn(32, 16, |x, y| colours[((x / 4 + y / 4) % 4) as usize]);
    for format in TexFormat::ALL {
        let t = Txtr::encode(&img, format, &EncodeOptions::default()).unwrap();
        assert_eq!(t.mip_count, 6);
        let bytes = t.to_bytes();
        let back = Txtr::parse(&bytes, "enc").unwrap();
        assert_eq!(back.to_bytes(), bytes);
        assert_eq!(back.complete_levels(), 6);
        let decoded = back.decode_level(0).unwrap();
        let exact = matches!(
            format,
            TexFormat::Rgba8
                | TexFormat::Rgb565
                | TexFormat::Rgb5A3
                | TexFormat::C4
                | TexFormat::C8
                | TexFormat::C14X2
                | TexFormat::Cmpr
        );
        if exact {
            assert_eq!(decoded, img, "{format:?}");
        }
    }
}

// ------------------------------------------------------------------------------------------
// CLI functions

#[test]
fn cli_info_json_uses_conformance_names() {
    let Some(dir) = conformance_dir() else { return };
    let spec = dir.join("mp1_fixtures.pak").display().to_string();
    let (res, whole) = tevscope::load::source::open(&spec).unwrap();
    assert!(res.is_pak());
    assert_eq!(res.game, Some(Game::Mp1));
    let cmpr = whole.find(0x1A00_0002, Some(*b"TXTR")).unwrap().unwrap();
    assert_eq!(cmpr.bytes.len(), 64);
    assert!(
        tevscope::cli::pak_txtr::texture(&spec, &std::env::temp_dir().join("x.png"), 0, false)
            .is_err()
    );
    let out: Value =
        serde_json::from_str(&tevscope::cli::pak_txtr::info_pak(&res, true).unwrap()).unwrap();
    let (_, json) = conformance_file("mp1_fixtures.pak").unwrap();
    for key in [
        "file",
        "size",
        "sha256",
        "format",
        "game",
        "version_major",
        "version_minor",
        "unused",
        "resource_count",
        "table_end",
        "named_resources",
    ] {
        if key != "file" {
            assert_eq!(out[key], json[key], "{key}");
        }
    }
    for (a, b) in out["resources"]
        .as_array()
        .unwrap()
        .iter()
        .zip(json["resources"].as_array().unwrap())
    {
        for key in ["index", "compressed", "type", "id", "size", "offset"] {
            assert_eq!(a[key], b[key], "{key}");
        }
        if b["compressed"] == 1 {
            assert_eq!(
                a["stored_decompressed_size_field"],
                b["stored_decompressed_size_field"]
            );
            assert_eq!(a["zlib_header_bytes"], b["zlib_header_bytes"]);
        }
    }
    let text = tevscope::cli::pak_txtr::info_pak(&res, false).unwrap();
    assert!(
        text.contains("fixture_cube") && text.contains("0xC0000001"),
        "{text}"
    );

    // A member by name, then TXTR info.
    let spec = format!("{}:0x1A000004", dir.join("mp1_fixtures.pak").display());
    let (res, resolver) = tevscope::load::source::open(&spec).unwrap();
    assert_eq!(res.fourcc, Some(*b"TXTR"));
    assert_eq!(res.game, Some(Game::Mp1));
    assert!(res.label.ends_with("mp1_fixtures.pak:0x1A000004.TXTR"));
    let out: Value =
        serde_json::from_str(&tevscope::cli::pak_txtr::info_txtr(&res, true).unwrap()).unwrap();
    let (_, json) = conformance_file("mp1_c4_8x8.TXTR").unwrap();
    assert_eq!(out["header"], {
        let mut h = json["header"].clone();
        h["gx_format"] = 8.into();
        h["mip_count"] = 1.into();
        h
    });
    assert_eq!(out["palette"], json["palette"]);
    assert_eq!(
        out["texel_data_offset_in_image_data"],
        json["texel_data_offset_in_image_data"]
    );
    assert_eq!(out["asset_id"], "0x1A000004");
    let skel = resolver.find(0xC100_0001, Some(*b"CINF")).unwrap().unwrap();
    assert_eq!(
        skel.label,
        format!("{}:0xC1000001.CINF", dir.join("mp1_fixtures.pak").display())
    );
    assert!(resolver.find(0x1234, None).unwrap().is_none());

    let spec = format!("{}:fixture_cube", dir.join("mp1_fixtures.pak").display());
    let (res, _) = tevscope::load::source::open(&spec).unwrap();
    assert_eq!((res.fourcc, res.id), (Some(*b"ANCS"), Some(0xAC00_0001)));
}

#[test]
fn cli_loose_files_resolve_siblings_by_id() {
    let Some(dir) = conformance_dir() else { return };
    let spec = dir.join("0x7EC00000.CMDL").display().to_string();
    let (res, resolver) = tevscope::load::source::open(&spec).unwrap();
    assert_eq!(
        (res.fourcc, res.id, res.game),
        (Some(*b"CMDL"), Some(0x7EC0_0000), None)
    );
    for n in 1..=4u64 {
        let t = resolver
            .find(0x7EC0_0000 + n, Some(*b"TXTR"))
            .unwrap()
            .unwrap();
        assert!(t.label.ends_with(&format!("0x7EC0000{n}.TXTR")));
        assert!(Txtr::parse(&t.bytes, &t.label).is_ok());
    }
    assert!(
        resolver
            .find(0x7EC0_0001, Some(*b"CMDL"))
            .unwrap()
            .is_none()
    );
    // A loose file without an ID in its name still gets its type from the extension.
    let (res, _) =
        tevscope::load::source::open(&dir.join("pwe/Sphere.CMDL").display().to_string()).unwrap();
    assert_eq!((res.fourcc, res.id), (Some(*b"CMDL"), None));
    assert!(
        tevscope::load::source::open(&format!("{}:0x1", dir.join("nope.pak").display())).is_err()
    );
    assert!(
        tevscope::load::source::open(&format!(
            "{}:0xDEAD",
            dir.join("mp1_fixtures.pak").display()
        ))
        .is_err()
    );
}

#[test]
fn cli_extract_and_texture() {
    let Some(dir) = conformance_dir() else { return };
    let out = std::env::temp_dir().join(format!("tevscope-extract-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let msg = tevscope::export::extract_to_folder(&dir.join("tev_cases.pak"), &out, false).unwrap();
    assert!(msg.contains("extracted 5 resources"), "{msg}");
    // Extracted files equal the loose fixtures (raw ones plus 0xFF padding).
    let cmdl = std::fs::read(out.join("0x7EC00000.CMDL")).unwrap();
    assert_eq!(cmdl, std::fs::read(dir.join("0x7EC00000.CMDL")).unwrap());
    let tex = std::fs::read(out.join("0x7EC00001.TXTR")).unwrap();
    let loose = std::fs::read(dir.join("0x7EC00001.TXTR")).unwrap();
    assert_eq!(&tex[..loose.len()], &loose[..]);
    let table: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("pak.json")).unwrap()).unwrap();
    assert_eq!(table["resources"][0]["name"], "tev_cases");
    assert_eq!(table["resources"][0]["file_name"], "0x7EC00000.CMDL");
    // The extracted folder resolves like the fixture folder.
    let (_, resolver) =
        tevscope::load::source::open(&out.join("0x7EC00000.CMDL").display().to_string()).unwrap();
    assert!(
        resolver
            .find(0x7EC0_0003, Some(*b"TXTR"))
            .unwrap()
            .is_some()
    );

    let png = out.join("tex.png");
    let spec = format!("{}:0x1A000001", dir.join("mp1_fixtures.pak").display());
    tevscope::cli::pak_txtr::texture(&spec, &png, 1, false).unwrap();
    let img = tevscope::image::RgbaImage::load_png(&png).unwrap();
    assert_eq!((img.width, img.height), (4, 4));
    assert_eq!(img.pixel(1, 0), [0, 0, 0, 255]);
    assert!(tevscope::cli::pak_txtr::texture(&spec, &png, 2, false).is_err());
    let cmdl_spec = dir.join("0x7EC00000.CMDL").display().to_string();
    assert!(tevscope::cli::pak_txtr::texture(&cmdl_spec, &png, 0, false).is_err());

    // import-texture: PNG → TXTR → PNG.
    let src =
        tevscope::image::RgbaImage::from_fn(16, 16, |x, y| [x as u8 * 16, y as u8 * 16, 0, 255]);
    src.save_png(out.join("in.png")).unwrap();
    let txtr = out.join("0x00000042.TXTR");
    tevscope::cli::pak_txtr::import_texture(&out.join("in.png"), &txtr, "rgba8", None, None)
        .unwrap();
    let t = Txtr::parse(&std::fs::read(&txtr).unwrap(), "x").unwrap();
    assert_eq!((t.format, t.mip_count), (TexFormat::Rgba8, 5));
    assert_eq!(t.decode_level(0).unwrap(), src);
    assert!(
        tevscope::cli::pak_txtr::import_texture(&out.join("in.png"), &txtr, "DXT1", None, None)
            .is_err()
    );
    let _ = std::fs::remove_dir_all(&out);
}
