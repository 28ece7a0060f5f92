from django.urls import path

from webapp.accounts import views

app_name = "accounts"

urlpatterns = [
    path("", views.account, name="account"),
    path("signup/", views.signup, name="signup"),
    path("invitation/<str:secret>/", views.invitation, name="invitation"),
    path("teams/new", views.team_create, name="team-create"),
    path("teams/<int:team_id>/invite", views.team_invite, name="team-invite"),
    path("teams/<int:team_id>/", views.team, name="team"),
    path("teams/<int:team_id>/remove", views.team_remove, name="team-remove"),
    path("teams/<int:team_id>/admins/add", views.team_admin_grant, name="team-admin-grant"),
    path("teams/<int:team_id>/admins/remove", views.team_admin_drop, name="team-admin-drop"),
    path(
        "teams/<int:team_id>/invitations/revoke",
        views.team_invitation_revoke,
        name="team-invitation-revoke",
    ),
    path("teams/<int:team_id>/leave", views.team_leave, name="team-leave"),
    path("tokens/new", views.token_create, name="token-create"),
    path("tokens/<int:token_id>/revoke", views.token_revoke, name="token-revoke"),
]
