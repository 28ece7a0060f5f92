"""URL configuration.

Language-neutral routes (API, health, static) sit outside ``i18n_patterns``;
pages are served under the active language, chosen by the browser or the
language switcher (``/i18n/setlang/``).
"""

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from webapp.accounts import views as account_views
from webapp.api import api, index
from webapp.planner import views as planner_views

urlpatterns = [
    path("api/v1/", index, name="api-index"),
    path("api/v1/", api.urls),
    path("healthz", planner_views.health, name="health"),
    path("favicon.ico", planner_views.favicon, name="favicon"),
    path("i18n/", include("django.conf.urls.i18n")),
    path("admin/", admin.site.urls),
    # Setting a new password from a reset link signs the user in, which also ends a lockout
    # for too many wrong passwords (django-axes clears the count on a successful sign-in).
    path(
        "accounts/reset/<uidb64>/<token>/",
        auth_views.PasswordResetConfirmView.as_view(
            post_reset_login=True,
            post_reset_login_backend="django.contrib.auth.backends.ModelBackend",
        ),
        name="password_reset_confirm",
    ),
    # Password reset requests are limited per address and per account.
    path(
        "accounts/password_reset/",
        account_views.PasswordResetView.as_view(),
        name="password_reset",
    ),
    # Django's sign-in, sign-out and password reset views (names: login, logout, …).
    path("accounts/", include("django.contrib.auth.urls")),
    path("accounts/", include("webapp.accounts.urls")),
    path("", include("webapp.scenarios.urls")),
    path("", include("webapp.advisor.urls")),
    path("", include("webapp.planner.urls")),
]
