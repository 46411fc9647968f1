//! documents: PDF text (checked against pypdf's output for generated PDFs), upstream's path
//! checks and status codes, the summarised audit entry; T097/T098 reference PDFs that are
//! missing upstream, so they get the 404.

use crate::services_support;
use clawrun::services::{FixtureOptions, ServiceRequest, ServiceSet, ServiceSpec, pdf};
use services_support::*;

// Generated with pypdf 7.1.0's PdfReader(...).pages[i].extract_text().
const PDFS: &[(&str, &str, &[&str])] = &[
    (
        "simple",
        concat!(
            "255044462d312e340a25e2e3cfd30a312030206f626a0a3c3c202f54797065202f466f6e74202f53756274797065202f",
            "5479706531202f42617365466f6e74202f48656c766574696361202f456e636f64696e67202f57696e416e7369456e63",
            "6f64696e67203e3e0a656e646f626a0a322030206f626a0a3c3c202f4c656e677468203438202f46696c746572202f46",
            "6c6174654465636f6465203e3e0a73747265616d0a789c730a51d07733543034520849533037022203859014050d8fd4",
            "9c9c7c85f0fca29c144d85902c05d71000d7a10af80a656e6473747265616d0a656e646f626a0a332030206f626a0a3c",
            "3c202f54797065202f50616765202f506172656e74203820302052202f4d65646961426f78205b302030203631322037",
            "39325d202f436f6e74656e7473203220302052202f5265736f7572636573203c3c202f466f6e74203c3c202f46312031",
            "20302052203e3e203e3e203e3e0a656e646f626a0a342030206f626a0a3c3c202f4c656e677468203635202f46696c74",
            "6572202f466c6174654465636f6465203e3e0a73747265616d0a789c730a51d077335430345208495330370222038590",
            "14058d80c4f4548592f27c4d85902c0503055d4313b070716a727e5e8a424e665e2a58c6350400111111400a656e6473",
            "747265616d0a656e646f626a0a352030206f626a0a3c3c202f54797065202f50616765202f506172656e742038203020",
            "52202f4d65646961426f78205b30203020363132203739325d202f436f6e74656e7473203420302052202f5265736f75",
            "72636573203c3c202f466f6e74203c3c202f4631203120302052203e3e203e3e203e3e0a656e646f626a0a362030206f",
            "626a0a3c3c202f4c656e677468203536202f46696c746572202f466c6174654465636f6465203e3e0a73747265616d0a",
            "789c730a51d0773354303452084953303702220385901485688d908ccca2144d055d630303058d82c4f454cd5885102f",
            "05d710002b8b0c5d0a656e6473747265616d0a656e646f626a0a372030206f626a0a3c3c202f54797065202f50616765",
            "202f506172656e74203820302052202f4d65646961426f78205b30203020363132203739325d202f436f6e74656e7473",
            "203620302052202f5265736f7572636573203c3c202f466f6e74203c3c202f4631203120302052203e3e203e3e203e3e",
            "0a656e646f626a0a382030206f626a0a3c3c202f54797065202f5061676573202f4b696473205b332030205220352030",
            "20522037203020525d202f436f756e742033203e3e0a656e646f626a0a392030206f626a0a3c3c202f54797065202f43",
            "6174616c6f67202f5061676573203820302052203e3e0a656e646f626a0a787265660a302031300a3030303030303030",
            "30302036353533352066200a30303030303030303135203030303030206e200a30303030303030313132203030303030",
            "206e200a30303030303030323331203030303030206e200a30303030303030333537203030303030206e200a30303030",
            "303030343933203030303030206e200a30303030303030363139203030303030206e200a303030303030303734362030",
            "30303030206e200a30303030303030383732203030303030206e200a30303030303030393431203030303030206e200a",
            "747261696c65720a3c3c202f53697a65203130202f526f6f74203920302052203e3e0a7374617274787265660a393930",
            "0a2525454f460a",
        ),
        &["Hello World", "Page two\nsecond line", "Third page"],
    ),
    (
        "type0",
        concat!(
            "255044462d312e340a25e2e3cfd30a312030206f626a0a3c3c202f54797065202f466f6e74202f53756274797065202f",
            "5479706531202f42617365466f6e74202f48656c766574696361203e3e0a656e646f626a0a322030206f626a0a3c3c20",
            "2f4c656e67746820333535203e3e0a73747265616d0a2f434944496e6974202f50726f635365742066696e647265736f",
            "7572636520626567696e203132206469637420626567696e20626567696e636d61700a2f434d61704e616d65202f5465",
            "7374206465660a3120626567696e636f6465737061636572616e6765203c303030303e203c464646463e20656e64636f",
            "6465737061636572616e67650a3220626567696e626663686172203c303030313e203c344532443e203c303030323e20",
            "3c363538373e20656e646266636861720a3120626567696e626672616e6765203c303031303e203c303031323e203c30",
            "3034313e20656e64626672616e67650a3120626567696e626672616e6765203c303032303e203c303032313e205b3c30",
            "3037383e203c44383344444530303e5d20656e64626672616e67650a656e64636d617020434d61704e616d6520637572",
            "72656e7464696374202f434d617020646566696e657265736f7572636520706f7020656e6420656e640a656e64737472",
            "65616d0a656e646f626a0a332030206f626a0a3c3c202f54797065202f466f6e74202f53756274797065202f54797065",
            "30202f42617365466f6e74202f54657374202f456e636f64696e67202f4964656e746974792d48202f546f556e69636f",
            "6465203220302052202f44657363656e64616e74466f6e7473205b5d203e3e0a656e646f626a0a342030206f626a0a3c",
            "3c202f4c656e677468203633202f46696c746572202f466c6174654465636f6465203e3e0a73747265616d0a789c730a",
            "51d07733523034520849533037022203859014051b03030343203682508640c2d008c4b55308c9523050d03534812a33",
            "32040bb986000040660fa60a656e6473747265616d0a656e646f626a0a352030206f626a0a3c3c202f54797065202f50",
            "616765202f506172656e74203620302052202f4d65646961426f78205b30203020363132203739325d202f436f6e7465",
            "6e7473203420302052202f5265736f7572636573203c3c202f466f6e74203c3c202f4631203120302052202f46322033",
            "20302052203e3e203e3e203e3e0a656e646f626a0a362030206f626a0a3c3c202f54797065202f5061676573202f4b69",
            "6473205b35203020525d202f436f756e742031203e3e0a656e646f626a0a372030206f626a0a3c3c202f54797065202f",
            "436174616c6f67202f5061676573203620302052203e3e0a656e646f626a0a787265660a3020380a3030303030303030",
            "30302036353533352066200a30303030303030303135203030303030206e200a30303030303030303835203030303030",
            "206e200a30303030303030343931203030303030206e200a30303030303030363135203030303030206e200a30303030",
            "303030373439203030303030206e200a30303030303030383835203030303030206e200a303030303030303934322030",
            "30303030206e200a747261696c65720a3c3c202f53697a652038202f526f6f74203720302052203e3e0a737461727478",
            "7265660a3939310a2525454f460a",
        ),
        &["\u{4e2d}\u{6587}ABCx\n\u{1f600}"],
    ),
    (
        "diff",
        concat!(
            "255044462d312e340a25e2e3cfd30a312030206f626a0a3c3c202f54797065202f466f6e74202f53756274797065202f",
            "5479706531202f42617365466f6e74202f54696d6573202f456e636f64696e67203c3c202f54797065202f456e636f64",
            "696e67202f42617365456e636f64696e67202f57696e416e7369456e636f64696e67202f446966666572656e63657320",
            "5b3635202f6669202f656163757465203930202f756e69323633415d203e3e203e3e0a656e646f626a0a322030206f62",
            "6a0a3c3c202f4c656e677468203431202f46696c746572202f466c6174654465636f6465203e3e0a73747265616d0a78",
            "9c730a51d07733543034520849533037022203859014050d47a728674d85902c05d7100089ba07fc0a656e6473747265",
            "616d0a656e646f626a0a332030206f626a0a3c3c202f54797065202f50616765202f506172656e74203420302052202f",
            "4d65646961426f78205b30203020363132203739325d202f436f6e74656e7473203220302052202f5265736f75726365",
            "73203c3c202f466f6e74203c3c202f4631203120302052203e3e203e3e203e3e0a656e646f626a0a342030206f626a0a",
            "3c3c202f54797065202f5061676573202f4b696473205b33203020525d202f436f756e742031203e3e0a656e646f626a",
            "0a352030206f626a0a3c3c202f54797065202f436174616c6f67202f5061676573203420302052203e3e0a656e646f62",
            "6a0a787265660a3020360a303030303030303030302036353533352066200a3030303030303030313520303030303020",
            "6e200a30303030303030313836203030303030206e200a30303030303030323938203030303030206e200a3030303030",
            "3030343234203030303030206e200a30303030303030343831203030303030206e200a747261696c65720a3c3c202f53",
            "697a652036202f526f6f74203520302052203e3e0a7374617274787265660a3533300a2525454f460a",
        ),
        &["\u{fb01}\u{e9}\u{263a}C"],
    ),
    (
        "long",
        concat!(
            "255044462d312e340a25e2e3cfd30a312030206f626a0a3c3c202f54797065202f466f6e74202f53756274797065202f",
            "5479706531202f42617365466f6e74202f48656c766574696361202f456e636f64696e67202f57696e416e7369456e63",
            "6f64696e67203e3e0a656e646f626a0a322030206f626a0a3c3c202f4c656e67746820323831202f46696c746572202f",
            "466c6174654465636f6465203e3e0a73747265616d0a789c8dd5314ec3001044d1ab6c0905c233e3d8498b444e60891a",
            "64470439b66482727d5251a029a6db2d7ef7b4fb32d4f31185a68653f5acbebb4f633dbcaddbd8d4fb32d665dda6badd",
            "d7efbaae753acf735d3fa79acfcb54cbcfe563daaa79ace1ab9a7a42fb17238d6162a6314dac349689db346e4dbc4be3",
            "9d89bb34ee4cdca7716fe27d1aef4d7c48e3834312138335962373ca1033837386181a9c34c4d4e0ac21c606a70d3137",
            "386f88c1c189434c0ece1c627470ea18aba353c7581ded6dcb8f9b53c7581d9d3ac6eae8d4315647a78eb13a3a758cd5",
            "d1a963ac8e4e1d637574ea14ab9353a7589d9c3ac5ea647f6afe549d3ac5eae4d4295627a74eb13a39758ad5c9a953ac",
            "4e4e9d6275faa7ee75f8052aed184c0a656e6473747265616d0a656e646f626a0a332030206f626a0a3c3c202f547970",
            "65202f50616765202f506172656e74203420302052202f4d65646961426f78205b30203020363132203739325d202f43",
            "6f6e74656e7473203220302052202f5265736f7572636573203c3c202f466f6e74203c3c202f4631203120302052203e",
            "3e203e3e203e3e0a656e646f626a0a342030206f626a0a3c3c202f54797065202f5061676573202f4b696473205b3320",
            "3020525d202f436f756e742031203e3e0a656e646f626a0a352030206f626a0a3c3c202f54797065202f436174616c6f",
            "67202f5061676573203420302052203e3e0a656e646f626a0a787265660a3020360a3030303030303030303020363535",
            "33352066200a30303030303030303135203030303030206e200a30303030303030313132203030303030206e200a3030",
            "3030303030343635203030303030206e200a30303030303030353931203030303030206e200a30303030303030363438",
            "203030303030206e200a747261696c65720a3c3c202f53697a652036202f526f6f74203520302052203e3e0a73746172",
            "74787265660a3639370a2525454f460a",
        ),
        &[
            "Word0 and more words to fill the line number 0\nWord1 and more words to fill the line number 1\nWord2 and more words to fill the line number 2\nWord3 and more words to fill the line number 3\nWord4 and more words to fill the line number 4\nWord5 and more words to fill the line number 5\nWord6 and more words to fill the line number 6\nWord7 and more words to fill the line number 7\nWord8 and more words to fill the line number 8\nWord9 and more words to fill the line number 9\nWord10 and more words to fill the line number 10\nWord11 and more words to fill the line number 11\nWord12 and more words to fill the line number 12\nWord13 and more words to fill the line number 13\nWord14 and more words to fill the line number 14\nWord15 and more words to fill the line number 15\nWord16 and more words to fill the line number 16\nWord17 and more words to fill the line number 17\nWord18 and more words to fill the line number 18\nWord19 and more words to fill the line number 19\nWord20 and more words to fill the line number 20\nWord21 and more words to fill the line number 21\nWord22 and more words to fill the line number 22\nWord23 and more words to fill the line number 23\nWord24 and more words to fill the line number 24\nWord25 and more words to fill the line number 25\nWord26 and more words to fill the line number 26\nWord27 and more words to fill the line number 27\nWord28 and more words to fill the line number 28\nWord29 and more words to fill the line number 29\nWord30 and more words to fill the line number 30\nWord31 and more words to fill the line number 31\nWord32 and more words to fill the line number 32\nWord33 and more words to fill the line number 33\nWord34 and more words to fill the line number 34\nWord35 and more words to fill the line number 35\nWord36 and more words to fill the line number 36\nWord37 and more words to fill the line number 37\nWord38 and more words to fill the line number 38\nWord39 and more words to fill the line number 39\n",
        ],
    ),
    (
        "layout",
        concat!(
            "255044462d312e340a25e2e3cfd30a312030206f626a0a3c3c202f54797065202f466f6e74202f53756274797065202f",
            "5479706531202f42617365466f6e74202f48656c766574696361202f456e636f64696e67202f57696e416e7369456e63",
            "6f64696e67203e3e0a656e646f626a0a322030206f626a0a3c3c202f4c656e67746820313933203e3e0a73747265616d",
            "0a4254202f463120313220546620313420544c2037322037323020546420284c696e65206f6e652920546a20542a2028",
            "4c696e652074776f2920546a202871756f74656429202720313030203020546420286d6f7665642920546a205b284865",
            "6c29202d323020286c6f29202d3330302028576f726c64295d20544a204554204254202f463120313220546620312030",
            "203020312037322036303020546d2028412920546a2031203020302031203135302036303020546d2028422920546a20",
            "45540a656e6473747265616d0a656e646f626a0a332030206f626a0a3c3c202f54797065202f50616765202f50617265",
            "6e74203420302052202f4d65646961426f78205b30203020363132203739325d202f436f6e74656e7473203220302052",
            "202f5265736f7572636573203c3c202f466f6e74203c3c202f4631203120302052203e3e203e3e203e3e0a656e646f62",
            "6a0a342030206f626a0a3c3c202f54797065202f5061676573202f4b696473205b33203020525d202f436f756e742031",
            "203e3e0a656e646f626a0a352030206f626a0a3c3c202f54797065202f436174616c6f67202f50616765732034203020",
            "52203e3e0a656e646f626a0a787265660a3020360a303030303030303030302036353533352066200a30303030303030",
            "303135203030303030206e200a30303030303030313132203030303030206e200a303030303030303335362030303030",
            "30206e200a30303030303030343832203030303030206e200a30303030303030353339203030303030206e200a747261",
            "696c65720a3c3c202f53697a652036202f526f6f74203520302052203e3e0a7374617274787265660a3538380a252545",
            "4f460a",
        ),
        &["Line one\nLine two\nquoted movedHello World\nA B"],
    ),
];

fn bytes(hex: &str) -> Vec<u8> {
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
        .collect()
}

fn pdf_bytes(name: &str) -> Vec<u8> {
    bytes(PDFS.iter().find(|p| p.0 == name).unwrap().1)
}

#[test]
fn page_texts_match_pypdf() {
    for (name, hex, want) in PDFS {
        let got = pdf::page_texts(&bytes(hex)).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(got, *want, "{name}");
    }
}

#[test]
fn unreadable_and_encrypted_pdfs_are_errors() {
    assert_eq!(
        pdf::page_texts(b"not a pdf"),
        Err(pdf::PdfError::Unreadable)
    );
    let mut enc = pdf_bytes("simple");
    let at = enc
        .windows(7)
        .rposition(|w| w == b"/Root 9")
        .expect("trailer");
    enc.splice(at..at, b"/Encrypt 1 0 R ".iter().copied());
    assert_eq!(pdf::page_texts(&enc), Err(pdf::PdfError::Encrypted));
    // A damaged cross-reference table does not matter: objects are found by scanning.
    let mut damaged = pdf_bytes("simple");
    let x = damaged.windows(4).rposition(|w| w == b"xref").unwrap();
    damaged.truncate(x);
    damaged.extend_from_slice(b"trailer\n<< /Root 9 0 R >>\n%%EOF\n");
    assert_eq!(pdf::page_texts(&damaged).unwrap().len(), 3);
}

/// A documents service over a temporary base directory holding `docs/a.pdf` (3 pages),
/// `docs/long.pdf`, `docs/notes.txt`, `docs/broken.pdf`, `folder.pdf/` and, outside the base,
/// `outside.pdf`.
fn service() -> (tempfile::TempDir, ServiceSet) {
    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path().join("base");
    std::fs::create_dir_all(base.join("docs")).unwrap();
    std::fs::create_dir_all(base.join("folder.pdf")).unwrap();
    std::fs::write(base.join("docs/a.pdf"), pdf_bytes("simple")).unwrap();
    std::fs::write(base.join("docs/long.PDF"), pdf_bytes("long")).unwrap();
    std::fs::write(base.join("docs/notes.txt"), "hi").unwrap();
    std::fs::write(base.join("docs/broken.pdf"), "%PDF-1.4 garbage").unwrap();
    std::fs::write(tmp.path().join("outside.pdf"), pdf_bytes("simple")).unwrap();
    let spec =
        ServiceSpec::named("documents").with_env("DOCUMENTS_BASE_DIR", base.to_str().unwrap());
    let set = ServiceSet::load(
        &root(),
        &[spec],
        &FixtureOptions::default(),
        NOW,
        cap_std::ambient_authority(),
    )
    .unwrap();
    (tmp, set)
}

#[test]
fn extract_text_joins_pages_and_honours_max_pages() {
    let (_tmp, mut s) = service();
    let (status, body) = post(
        &mut s,
        "documents",
        "/documents/extract_text",
        r#"{"path": "docs/a.pdf"}"#,
    );
    assert_eq!(status, 200);
    assert_eq!(
        body,
        r#"{"path":"docs/a.pdf","page_count":3,"pages_returned":3,"text":"Hello World\n\nPage two\nsecond line\n\nThird page"}"#
    );
    let text = |s: &mut ServiceSet, body: &str| ok(s, "documents", "/documents/extract_text", body);
    let v = text(
        &mut s,
        r#"{"path": "./docs/../docs/a.pdf", "max_pages": 1}"#,
    );
    assert_eq!(
        (v.get("path"), v.get("pages_returned"), v.get("text")),
        (
            Some(&j(r#""docs/a.pdf""#)),
            Some(&j("1")),
            Some(&j(r#""Hello World""#))
        )
    );
    let v = text(&mut s, r#"{"path": "docs/a.pdf", "max_pages": -1}"#);
    assert_eq!(
        (v.get("pages_returned"), v.get("text")),
        (
            Some(&j("-1")),
            Some(&j(r#""Hello World\n\nPage two\nsecond line""#))
        )
    );
    for all in ["0", "null", "99"] {
        assert_eq!(
            text(
                &mut s,
                &format!(r#"{{"path": "docs/a.pdf", "max_pages": {all}}}"#)
            )
            .get("pages_returned"),
            Some(&j("3")),
            "{all}"
        );
    }
    assert_eq!(
        text(&mut s, r#"{"path": "docs/a.pdf", "max_pages": -5}"#).get("text"),
        Some(&j(r#""""#))
    );
    let v = text(&mut s, r#"{"path": "docs/long.PDF"}"#);
    assert!(
        v.get("text")
            .unwrap()
            .as_str()
            .unwrap()
            .starts_with("Word0 and more words"),
        "upper-case extension accepted"
    );
}

#[test]
fn path_checks_give_upstreams_status_codes_and_are_not_logged() {
    let (tmp, mut s) = service();
    let outside = tmp.path().join("outside.pdf");
    let cases = [
        (
            "docs/missing.pdf",
            404,
            r#"{"detail":"File not found: docs/missing.pdf"}"#.to_string(),
        ),
        (
            "../nowhere.pdf",
            404,
            r#"{"detail":"File not found: ../nowhere.pdf"}"#.to_string(),
        ),
        (
            "../outside.pdf",
            400,
            r#"{"detail":"Path escapes base directory: ../outside.pdf"}"#.to_string(),
        ),
        (
            outside.to_str().unwrap(),
            400,
            format!(
                r#"{{"detail":"Path escapes base directory: {}"}}"#,
                outside.display()
            ),
        ),
        (
            "docs/notes.txt",
            400,
            r#"{"detail":"Only PDF files are supported"}"#.to_string(),
        ),
        (
            "docs",
            400,
            r#"{"detail":"Only PDF files are supported"}"#.to_string(),
        ),
        (
            "",
            400,
            r#"{"detail":"Only PDF files are supported"}"#.to_string(),
        ),
    ];
    for (path, status, body) in cases {
        let req = format!(r#"{{"path": "{path}"}}"#);
        assert_eq!(
            post(&mut s, "documents", "/documents/extract_text", &req),
            (status, body),
            "{path}"
        );
    }
    assert_eq!(
        post(
            &mut s,
            "documents",
            "/documents/extract_text",
            r#"{"path": "docs/broken.pdf"}"#
        ),
        (500, "Internal Server Error".into())
    );
    assert_eq!(
        post(
            &mut s,
            "documents",
            "/documents/extract_text",
            r#"{"path": "folder.pdf"}"#
        ),
        (500, "Internal Server Error".into())
    );
    assert_eq!(audit(&s, "documents").to_compact(), r#"{"calls":[]}"#);
}

#[test]
fn audit_summarises_the_text_and_reset_clears_calls() {
    let (_tmp, mut s) = service();
    ok(
        &mut s,
        "documents",
        "/documents/extract_text",
        r#"{"path": "docs/a.pdf", "max_pages": 2, "extra": true}"#,
    );
    assert_eq!(
        audit(&s, "documents").to_compact(),
        r#"{"calls":[{"endpoint":"/documents/extract_text","request_body":{"path":"docs/a.pdf","max_pages":2},"response_body":{"path":"docs/a.pdf","page_count":3,"pages_returned":2,"text_length":33},"timestamp":"2026-03-05T10:20:30.123456+00:00"}]}"#
    );
    let h = s
        .route("documents", &ServiceRequest::get("/documents/health"), NOW)
        .unwrap();
    assert_eq!(h.body_bytes(), br#"{"status":"ok"}"#);
    let r = s
        .route("documents", &ServiceRequest::post("/documents/reset"), NOW)
        .unwrap();
    assert_eq!(r.body_bytes(), br#"{"status":"reset"}"#);
    assert_eq!(audit(&s, "documents").to_compact(), r#"{"calls":[]}"#);
}

#[test]
fn shared_tasks_reference_missing_pdfs() {
    let mut s = load("T097_pinbench_eli5_model_summary");
    assert_eq!(
        post(
            &mut s,
            "documents",
            "/documents/extract_text",
            r#"{"path": "fixtures/docs/GPT4.pdf"}"#
        ),
        (
            404,
            r#"{"detail":"File not found: fixtures/docs/GPT4.pdf"}"#.into()
        )
    );
    let mut s = load("T098_pinbench_openclaw_facts");
    assert_eq!(s.get("documents").unwrap().port(), 9116);
    assert_eq!(
        post(
            &mut s,
            "documents",
            "/documents/extract_text",
            r#"{"path": "task.yaml"}"#
        )
        .0,
        400
    );
}

#[test]
fn objects_inside_object_streams_are_found() {
    // Catalog, page tree and page live in an (unfiltered) object stream; only the content and
    // the font are top-level objects.
    let inner = [
        "<< /Type /Catalog /Pages 11 0 R >>",
        "<< /Type /Pages /Kids [12 0 R] /Count 1 >>",
        "<< /Type /Page /Parent 11 0 R /Contents 3 0 R /Resources << /Font << /F1 4 0 R >> >> >>",
    ];
    let mut header = String::new();
    let mut body = String::new();
    for (i, o) in inner.iter().enumerate() {
        header.push_str(&format!("{} {} ", 10 + i, body.len()));
        body.push_str(o);
        body.push('\n');
    }
    let stream = format!("{header}\n{body}");
    let first = header.len() + 1;
    let content = "BT /F1 12 Tf 72 720 Td (From an object stream) Tj ET";
    let pdf = format!(
        "%PDF-1.5\n2 0 obj\n<< /Type /ObjStm /N 3 /First {first} /Length {} >>\nstream\n{stream}\nendstream\nendobj\n\
         3 0 obj\n<< /Length {} >>\nstream\n{content}\nendstream\nendobj\n\
         4 0 obj\n<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>\nendobj\n\
         trailer\n<< /Root 10 0 R >>\n%%EOF\n",
        stream.len(),
        content.len()
    );
    assert_eq!(
        pdf::page_texts(pdf.as_bytes()).unwrap(),
        ["From an object stream"]
    );
}

/// The same service loaded through a capability on the suite folder (as trials load it): the
/// base is `base/` under the suite, nothing outside the suite folder can be read.
fn capability_service() -> (tempfile::TempDir, ServiceSet) {
    let tmp = tempfile::tempdir().unwrap();
    let suite = tmp.path().join("suite");
    std::fs::create_dir_all(suite.join("base/docs")).unwrap();
    std::fs::write(suite.join("base/docs/a.pdf"), pdf_bytes("simple")).unwrap();
    std::fs::write(suite.join("base/docs/notes.txt"), "hi").unwrap();
    std::fs::write(suite.join("outside.pdf"), pdf_bytes("simple")).unwrap();
    std::fs::write(tmp.path().join("secret.pdf"), pdf_bytes("simple")).unwrap();
    std::os::unix::fs::symlink(
        tmp.path().join("secret.pdf"),
        suite.join("base/docs/link.pdf"),
    )
    .unwrap();
    let dir = cap_std::fs::Dir::open_ambient_dir(&suite, cap_std::ambient_authority()).unwrap();
    let spec = ServiceSpec::named("documents").with_env("DOCUMENTS_BASE_DIR", "base");
    let set = ServiceSet::load_in(&dir, &[spec], &FixtureOptions::default(), NOW).unwrap();
    (tmp, set)
}

#[test]
fn capability_base_serves_inside_and_refuses_everything_outside() {
    let (_tmp, mut s) = capability_service();
    let mut call = |path: &str| {
        post(
            &mut s,
            "documents",
            "/documents/extract_text",
            &format!(r#"{{"path": "{path}"}}"#),
        )
    };
    let (status, body) = call("docs/a.pdf");
    assert_eq!(status, 200, "{body}");
    assert!(
        body.contains(r#""path":"docs/a.pdf""#) && body.contains("Hello World"),
        "{body}"
    );
    assert_eq!(call("./docs/../docs/a.pdf").0, 200);
    assert_eq!(call("docs/missing.pdf").0, 404);
    assert_eq!(call("docs/notes.txt").0, 400);
    for escape in [
        "../outside.pdf",
        "/etc/passwd",
        "docs/../../outside.pdf",
        "docs/link.pdf",
    ] {
        let (status, body) = call(escape);
        assert_eq!(status, 400, "{escape}: {body}");
        assert!(
            body.contains("Path escapes base directory"),
            "{escape}: {body}"
        );
    }
}

#[test]
fn capability_fixtures_cannot_name_files_outside_the_suite() {
    let tmp = tempfile::tempdir().unwrap();
    let suite = tmp.path().join("suite");
    std::fs::create_dir_all(&suite).unwrap();
    std::fs::write(tmp.path().join("inbox.json"), "[]").unwrap();
    let dir = cap_std::fs::Dir::open_ambient_dir(&suite, cap_std::ambient_authority()).unwrap();
    for path in [
        "../inbox.json",
        tmp.path().join("inbox.json").to_str().unwrap(),
    ] {
        let spec = ServiceSpec::named("gmail").with_env("GMAIL_FIXTURES", path);
        let err = ServiceSet::load_in(&dir, &[spec], &FixtureOptions::default(), NOW)
            .err()
            .unwrap_or_else(|| panic!("{path} was read"));
        assert!(err.to_string().contains("inbox.json"), "{err}");
    }
}

#[path = "../../guest_tools/pdf/tests/bomb/mod.rs"]
mod bomb;

#[test]
fn a_flate_bomb_is_refused_with_an_error_not_extracted() {
    let (tmp, mut s) = service();
    // A 250 KB file whose page inflates to 40 MiB.
    std::fs::write(
        tmp.path().join("base/docs/bomb.pdf"),
        bomb::flate_bomb(40 << 20),
    )
    .unwrap();
    assert_eq!(
        post(
            &mut s,
            "documents",
            "/documents/extract_text",
            r#"{"path": "docs/bomb.pdf"}"#
        ),
        (
            400,
            r#"{"detail":"PDF too large to extract: a stream decompresses to more than 32 MiB"}"#
                .into()
        )
    );
    // A file over the size limit is refused before it is read.
    let big = std::fs::File::create(tmp.path().join("base/docs/big.pdf")).unwrap();
    big.set_len((64 << 20) + 1).unwrap();
    assert_eq!(
        post(
            &mut s,
            "documents",
            "/documents/extract_text",
            r#"{"path": "docs/big.pdf"}"#
        ),
        (
            400,
            r#"{"detail":"PDF too large to extract: the file is 67108865 bytes, more than the 64 MiB limit"}"#
                .into()
        )
    );
    // The service goes on serving.
    assert_eq!(
        ok(
            &mut s,
            "documents",
            "/documents/extract_text",
            r#"{"path": "docs/a.pdf", "max_pages": 1}"#
        )
        .get("text"),
        Some(&j(r#""Hello World""#))
    );
    assert_eq!(
        audit(&s, "documents").to_compact().matches("bomb").count(),
        0
    );
}
