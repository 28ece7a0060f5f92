from django.urls import path

from webapp.advisor import views

app_name = "advisor"

urlpatterns = [
    path("advisor/", views.advisor, name="advisor"),
    path("guide/", views.guide, name="guide"),
]
