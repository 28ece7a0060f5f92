"""The account pages in a real browser, in both languages: a team admin's team page works
and axe-core finds no violation on it; five wrong passwords typed into the sign-in form
bring the lockout page, in the site's layout, with no violation either."""

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from tests.browser.conftest import PageWatch
from tests.browser.test_accessibility import AXE, violations
from tests.webapp.accounts.factories import PASSWORD, people

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def context_for(browser, language: str):
    return browser.new_context(
        viewport={"width": 1280, "height": 900},
        extra_http_headers={"Accept-Language": language},
        bypass_csp=True,  # axe is injected as a script of the test's, not the page's
    )


def signed_in_context(browser, live_server, user, language: str):
    client = Client()
    client.force_login(user)
    context = context_for(browser, language)
    context.add_cookies(
        [
            {
                "name": "sessionid",
                "value": client.cookies["sessionid"].value,
                "url": live_server.url,
            }
        ]
    )
    return context


@pytest.mark.parametrize(
    ("language", "make_admin", "done"),
    [
        ("en", "Make admin", "bob is now an admin of the team “Vision”."),
        ("zh-hans", "设为管理员", "bob 现在是团队“Vision”的管理员。"),
    ],
)
def test_a_team_admin_makes_a_member_admin_on_the_team_page(
    browser, live_server, language, make_admin, done
):
    assert AXE.exists(), f"{AXE}: make install fetches axe-core with npm"
    cast = people()
    context = signed_in_context(browser, live_server, cast.alice, language)
    try:
        page = context.new_page()
        watch = PageWatch(page, live_server.url)
        page.goto(live_server.url + reverse("accounts:account"))
        page.click(f"a[href='{reverse('accounts:team', args=[cast.vision.pk])}']")
        assert violations(page) == []

        page.click(f"tr[data-member='bob'] button:has-text('{make_admin}')")

        assert done in page.inner_text("ul.messages")
        assert set(cast.vision.admins.values_list("username", flat=True)) == {"alice", "bob"}
        watch.assert_clean()
    finally:
        context.close()


@pytest.mark.parametrize(
    ("language", "heading"), [("en", "Too many sign-in attempts"), ("zh-hans", "登录尝试次数过多")]
)
def test_five_wrong_passwords_typed_in_bring_the_lockout_page(
    browser, live_server, language, heading
):
    User.objects.create_user("erin", "erin@example.com", PASSWORD)
    context = context_for(browser, language)
    try:
        page = context.new_page()
        watch = PageWatch(page, live_server.url)
        page.goto(live_server.url + reverse("login"))
        for n in range(5):
            page.fill("input[name='username']", "erin")
            page.fill("input[name='password']", f"guess {n}")
            with page.expect_navigation():
                page.click("main button[type='submit']")

        assert page.inner_text("h1") == heading
        assert page.locator("#account-link").count() == 1  # the site's layout
        assert violations(page) == []
        page.click(f"a[href='{reverse('password_reset')}']")
        assert page.url == live_server.url + reverse("password_reset")
        # Chromium reports the page's own 429 status as a console error; nothing else may be.
        watch.errors = [error for error in watch.errors if "status of 429" not in error]
        watch.assert_clean()
    finally:
        context.close()
