from django.urls import path

from webapp.planner import views

app_name = "planner"

urlpatterns = [
    path("", views.home, name="home"),
]
