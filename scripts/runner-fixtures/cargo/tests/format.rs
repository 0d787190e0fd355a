use calc::format_total;

#[test]
fn formats_a_total() {
    assert_eq!(format_total(&[1, 2]), "total: 3");
    assert_eq!(format_total(&[1, 2]), "total: 4"); // fault:D
}
