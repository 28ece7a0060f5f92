from django.urls import path

from webapp.scenarios import views

app_name = "scenarios"

urlpatterns = [
    path("saved/<uuid:pk>/team", views.share, name="share"),
]
