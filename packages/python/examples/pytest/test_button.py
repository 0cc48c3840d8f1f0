def test_save_button_looks_as_approved(screenshot, assert_golden):
    png = screenshot("page/button.html", width=320, height=200)
    assert_golden(png, "button")


def test_narrow_window(screenshot, assert_golden):
    png = screenshot("page/button.html", width=240, height=160)
    assert_golden(png, "button-narrow", max_pixels=0)
