from django.urls import path

from webapp.planner import language, measured_views, views, workbook_views

app_name = "planner"

urlpatterns = [
    path("", views.home, name="home"),
    path("usage/", measured_views.usage, name="usage"),
    path("usage/profile", measured_views.usage_profile, name="usage-profile"),
    path("plan/committed-instances", views.committed_default, name="committed-default"),
    path("r/option", views.results_option, name="results-option"),
    path("r/<str:code>", views.results, name="results"),
    path("r/<str:code>/projection.csv", views.results_csv, name="results-csv"),
    path("r/<str:code>/finance.zip", views.results_zip, name="results-zip"),
    path("r/<str:code>/analysis.json", views.results_analysis, name="results-analysis"),
    path("r/<str:code>/workbook.xlsx", workbook_views.results_workbook, name="results-workbook"),
    path("r/<str:code>/scenario.json", views.results_scenario, name="results-scenario"),
    path("saved/", views.saved_list, name="saved-list"),
    path("saved/new", views.save, name="save"),
    path("saved/compare", views.saved_compare, name="saved-compare"),
    path("saved/summary.csv", views.saved_summary_csv, name="saved-summary-csv"),
    path("saved/workbook.xlsx", workbook_views.compare_workbook, name="saved-compare-workbook"),
    path("saved/<uuid:pk>/", views.saved_detail, name="saved-detail"),
    path("saved/<uuid:pk>/rename", views.saved_rename, name="saved-rename"),
    path("saved/<uuid:pk>/delete", views.saved_delete, name="saved-delete"),
    path("saved/<uuid:pk>/projection.csv", views.saved_csv, name="saved-csv"),
    path("saved/<uuid:pk>/finance.zip", views.saved_zip, name="saved-zip"),
    path("saved/<uuid:pk>/analysis.json", views.saved_analysis, name="saved-analysis"),
    path("saved/<uuid:pk>/workbook.xlsx", workbook_views.saved_workbook, name="saved-workbook"),
    path("saved/<uuid:pk>/scenario.json", views.saved_scenario, name="saved-scenario"),
    path("saved/<uuid:pk>/rerun", views.saved_rerun, name="saved-rerun"),
    path("language", language.set_language, name="set-language"),
]
