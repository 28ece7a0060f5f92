from django.urls import path

from webapp.accounts import views

app_name = "accounts"

urlpatterns = [
    path("", views.account, name="account"),
    path("signup/", views.signup, name="signup"),
    path("invitation/<str:secret>/", views.invitation, name="invitation"),
    path("teams/new", views.team_create, name="team-create"),
    path("teams/<int:team_id>/invite", views.team_invite, name="team-invite"),
    path("tokens/new", views.token_create, name="token-create"),
    path("tokens/<int:token_id>/revoke", views.token_revoke, name="token-revoke"),
]
