"""The language switch is easy to see (WCAG AA contrast) and takes a person to Chinese and back."""

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WCAG_AA = 4.5

# Text and background colour of each switch button as painted: the first ancestor with an
# opaque background supplies it when the button's own is transparent.
COLOURS = """() => [...document.querySelectorAll(".lang-switch button")].map((button) => {
  const rgba = (css) => (css.match(/[\\d.]+/g) || []).map(Number);
  let background = [0, 0, 0, 0];
  for (let el = button; el && background[3] === 0; el = el.parentElement) {
    const c = rgba(getComputedStyle(el).backgroundColor);
    background = c.length === 3 ? [...c, 1] : c;
  }
  if (background[3] === 0) { background = [255, 255, 255, 1]; }
  const box = button.getBoundingClientRect();
  return {
    text: button.textContent.trim(),
    current: button.getAttribute("aria-current") === "true",
    color: rgba(getComputedStyle(button).color),
    background: background,
    onScreen: box.width > 0 && box.left >= 0 && box.right <= window.innerWidth,
  };
})"""


def _luminance(rgb) -> float:
    """WCAG 2 relative luminance of an sRGB colour given as 0–255 channels."""
    channels = []
    for value in rgb[:3]:
        c = value / 255
        channels.append(c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4)
    red, green, blue = channels
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def contrast(foreground, background) -> float:
    lighter, darker = sorted((_luminance(foreground), _luminance(background)), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


def test_the_contrast_formula_matches_wcag_reference_values():
    assert contrast((0, 0, 0), (255, 255, 255)) == pytest.approx(21.0)
    assert contrast((255, 255, 255), (255, 255, 255)) == pytest.approx(1.0)
    assert contrast((0x76, 0x76, 0x76), (255, 255, 255)) == pytest.approx(4.54, abs=0.01)


@pytest.mark.parametrize("width", [1280, 390])
@pytest.mark.parametrize("language", ["en-US", "zh-CN"])
def test_each_language_button_is_on_screen_with_aa_contrast(browser, live_server, width, language):
    context = browser.new_context(viewport={"width": width, "height": 800}, locale=language)
    try:
        page = context.new_page()
        page.goto(live_server.url + "/")
        buttons = page.evaluate(COLOURS)
    finally:
        context.close()

    assert sorted(b["text"] for b in buttons) == ["English", "简体中文"]
    assert sum(b["current"] for b in buttons) == 1
    for button in buttons:
        assert button["onScreen"], button
        ratio = contrast(button["color"], button["background"])
        assert ratio >= WCAG_AA, f"{button['text']}: contrast {ratio:.2f} < {WCAG_AA}"


def test_a_person_switches_to_chinese_and_back_on_a_phone(browser, live_server, shipped_catalog):
    context = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-US")
    try:
        page = context.new_page()
        page.goto(live_server.url + "/guide/")
        assert page.locator("html").get_attribute("lang") == "en"
        assert page.get_by_role("heading", level=1).inner_text() == "The guide, checked"

        page.get_by_role("button", name="简体中文").click()
        page.wait_for_selector("html[lang='zh-hans']")
        assert page.url == live_server.url + "/guide/"
        assert page.get_by_role("heading", level=1).inner_text() == "指南核验"
        assert page.get_by_role("button", name="简体中文").get_attribute("aria-current") == "true"

        page.goto(live_server.url + "/")  # the choice sticks on the next page
        assert page.locator("html").get_attribute("lang") == "zh-hans"

        page.get_by_role("button", name="English").click()
        page.wait_for_selector("html[lang='en']")
        assert page.url == live_server.url + "/"
        assert page.get_by_role("button", name="Compare build and rent").is_visible()
    finally:
        context.close()
