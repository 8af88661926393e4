//! Methods as tools: in an `impl` marked `#[tools]`, each `#[tool]` method's `&self` is the
//! application's object of that type, which the session holds as state.

use std::sync::Mutex;

use cy_tools::definition::Definition;
use cy_tools::prelude::*;

/// The application's weather service.
pub struct Weather {
    /// Forecasts by city.
    forecasts: Mutex<Vec<(String, String)>>,
}

/// A unit for temperatures.
#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Unit {
    /// Degrees Celsius.
    Celsius,
    /// Degrees Fahrenheit.
    Fahrenheit,
}

#[tools]
impl Weather {
    /// Where a forecast is for, unless the model says.
    fn default_city() -> String {
        "Paris".to_string()
    }

    /// A helper, not a tool.
    fn find(&self, city: &str) -> Option<String> {
        let forecasts = self.forecasts.lock().unwrap();
        forecasts
            .iter()
            .find(|(c, _)| c == city)
            .map(|(_, f)| f.clone())
    }

    /// The forecast for a city.
    #[tool(read_only)]
    pub async fn forecast(
        &self,
        /// The city.
        #[arg(default = Self::default_city())]
        city: String,
        /// The unit.
        #[arg(default = Unit::Celsius)]
        unit: Unit,
    ) -> Result<String, ToolError> {
        let forecast = self
            .find(&city)
            .ok_or_else(|| ToolError::new(format!("no forecast for `{city}`; try Paris")))?;
        Ok(match unit {
            Unit::Celsius => forecast,
            Unit::Fahrenheit => format!("{forecast} (in °F)"),
        })
    }

    /// Record a forecast, from a plain method, seeing the call too.
    #[tool(name = "weather.record", capabilities(session))]
    fn record(
        &self,
        session: &SessionIdentity,
        call: CallInfo,
        /// The city.
        city: String,
        /// The forecast.
        forecast: String,
    ) -> usize {
        let mut forecasts = self.forecasts.lock().unwrap();
        forecasts.push((city, forecast));
        let _ = (session, call.id);
        forecasts.len()
    }

    /// How many cities, as JSON.
    #[tool]
    async fn count(&self, ctx: Ctx<'_>) -> Json<usize> {
        let _ = ctx;
        Json(self.forecasts.lock().unwrap().len())
    }
}

fn main() {
    assert_eq!(WEATHER_FORECAST.name(), "forecast");
    assert_eq!(WEATHER_FORECAST.description(), "The forecast for a city.");
    assert_eq!(
        WEATHER_FORECAST.schema().unwrap().field_list(),
        "`city` (string), `unit` (one of `celsius` or `fahrenheit`)"
    );
    assert_eq!(WEATHER_RECORD.name(), "weather.record");
    assert!(WEATHER_COUNT.output_schema().unwrap().wraps_result());
    let _: Option<WeatherForecastParams> = None;
    let _: Option<WeatherRecordCaps> = None;

    let weather = Weather {
        forecasts: Mutex::new(vec![("Paris".into(), "sunny".into())]),
    };
    let context = ToolContext::new(SessionIdentity::root("s-1", "acme")).with_state(weather);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let session =
            Session::linked(context, &["forecast", "weather.record", "count"]).unwrap();
        let call = |name: &'static str, args: serde_json::Value| session.call(name, args);
        assert_eq!(call("forecast", serde_json::json!({})).await.to_string(), "sunny");
        let recorded = call(
            "weather.record",
            serde_json::json!({"city": "Oslo", "forecast": "snow"}),
        );
        assert_eq!(recorded.await.to_string(), "2");
        let oslo = call("forecast", serde_json::json!({"city": "Oslo", "unit": "fahrenheit"}));
        assert_eq!(oslo.await.to_string(), "snow (in °F)");
        let missing = call("forecast", serde_json::json!({"city": "Rome"})).await;
        assert!(missing.is_error);
        assert_eq!(missing.to_string(), "no forecast for `Rome`; try Paris");
        assert_eq!(
            call("count", serde_json::json!({})).await.content,
            vec![Content::json(serde_json::json!(2))]
        );
    });

    // A session without a `Weather` leaves the methods out, saying why.
    let err = Session::linked(ToolContext::local(), &["forecast"]).unwrap_err();
    assert!(err.to_string().contains("Weather"), "{err}");
}
