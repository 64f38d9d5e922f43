module Shop
  class Base
    def save
      validate
      persist
    end

    def validate
      true
    end

    def persist
      @saved = true
    end
  end
end
